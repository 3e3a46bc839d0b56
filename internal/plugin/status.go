package plugin

import (
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/tmux"
)

// tmux's default status lengths, and what badges need instead.
const (
	defaultLeftLength  = "10"
	defaultRightLength = "40"
	roomyLength        = "200"
)

// statusCommands replace the placeholder in status-left and status-right, and make room
// for the badges where the user left tmux's default length.
func (p Plugin) statusCommands(cur current) [][]string {
	segment := p.segment()
	var cmds [][]string
	for _, opt := range []struct{ name, value, length, defaultLength string }{
		{"status-left", cur.left, cur.leftLength, defaultLeftLength},
		{"status-right", cur.right, cur.rightLength, defaultRightLength},
	} {
		if !strings.Contains(opt.value, Placeholder) {
			continue
		}
		cmds = append(cmds, []string{"set-option", "-g", opt.name,
			tmux.LiteralArg(strings.ReplaceAll(opt.value, Placeholder, segment))})
		if opt.length == opt.defaultLength {
			cmds = append(cmds, []string{"set-option", "-g", opt.name + "-length", roomyLength})
		}
	}
	return cmds
}

// segment is what the placeholder becomes: the pushed option, or a job that reads the
// snapshot. The job's command is constant, so tmux runs one job per status-interval.
func (p Plugin) segment() string {
	if !p.Values.Push() {
		return "#(" + hooks.Invocation(p.Binary, p.Server.SocketPath()) + " status --short)"
	}
	return "#{" + StatusOption + "}"
}
