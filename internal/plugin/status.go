package plugin

import (
	"strings"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/statusline"
)

// tmux's default status lengths, and what badges need instead.
const (
	defaultLeftLength  = "10"
	defaultRightLength = "40"
	roomyLength        = "200"
)

// tmux's default status-interval, and the one the plugin sets in its place (as
// tmux-sensible does): the bar's guard runs at most every status-interval, and 15 s is
// too long to show a bar whose daemon has died.
const (
	defaultInterval = "15"
	guardInterval   = "5"
)

// LeaseOption holds the Unix second until which the status bar shows the pushed line
// without running its guard. The daemon sets it with its pushes, so the redraws a push
// causes start no process; a daemon killed with SIGKILL stops renewing it, and the
// guard runs again at the next redraw after it ends.
const LeaseOption = "@paneherd_lease"

// A push sets the lease LeaseTerm ahead when less than LeaseRenew of it is left: at most
// one more set-option every LeaseTerm-LeaseRenew while the line keeps changing, and the
// redraw of every push still falls inside the lease (%s is read in whole seconds).
const (
	LeaseTerm  = 4 * time.Second
	LeaseRenew = 2 * time.Second
)

// statusCommands replace the placeholder in status-left and status-right (the build's
// word, then the badges: a pending placeholder paneherd.tmux left becomes the same), make room for
// the badges where the user left tmux's default length, and shorten tmux's default
// status-interval.
func (p Plugin) statusCommands(cur current) [][]string {
	segment := p.Segment()
	var cmds [][]string
	for _, opt := range []struct{ name, value, length, defaultLength string }{
		{"status-left", cur.left, cur.leftLength, defaultLeftLength},
		{"status-right", cur.right, cur.rightLength, defaultRightLength},
	} {
		if !strings.Contains(opt.value, Placeholder) {
			continue
		}
		value := strings.ReplaceAll(opt.value, Pending, Placeholder)
		value = strings.ReplaceAll(value, Placeholder, "#{"+BuildOption+"}"+segment)
		cmds = append(cmds, []string{"set-option", "-g", opt.name, tmux.LiteralArg(value)})
		if opt.length == opt.defaultLength {
			cmds = append(cmds, []string{"set-option", "-g", opt.name + "-length", roomyLength})
		}
	}
	if len(cmds) > 0 && cur.interval == defaultInterval {
		cmds = append(cmds, []string{"set-option", "-g", "status-interval", guardInterval})
	}
	return cmds
}

// Segment is what the placeholder becomes. Both modes run `paneherd bar`, which starts
// again a daemon that died without being stopped and says whether one runs; tmux runs a
// #() job again at any redraw a second or more after its last run, not only every
// status-interval.
//
// Job mode: the job prints the badges, or the off marker.
//
// Push mode: the pushed option, while the lease the daemon renews with its pushes holds
// (%s is the time: tmux passes the status line through strftime); after it, the job
// says whether a daemon runs (1) or not (0, or nothing when it cannot run): the pushed
// line, or the off marker. tmux shows "<'…' not ready>" for a job that has not finished
// yet: true, so the pushed line.
func (p Plugin) Segment() string {
	if !p.Values.Push() {
		return "#(" + p.barCommand("--badges") + ")"
	}
	status := "#{" + StatusOption + "}"
	guarded := "#{?#(" + p.barCommand() + ")," + status + "," + statusline.Off + "}"
	return "#{?#{e|<|:%s,#{" + LeaseOption + "}}," + status + "," + guarded + "}"
}

// barCommand is the shell command of the bar's job, escaped for where it sits: inside a
// #{?...} a ',' or '}' would end the condition, and strftime reads '%' before any of it.
// (A '(' or ')' in a path cannot be escaped: tmux counts them to find the job's end.)
func (p Plugin) barCommand(args ...string) string {
	cmd := strings.Join(append([]string{hooks.Invocation(p.Binary, p.Server.SocketPath()), "bar"}, args...), " ")
	return barEscaper.Replace(cmd)
}

var barEscaper = strings.NewReplacer(",", "#,", "}", "#}", "%", "%%")
