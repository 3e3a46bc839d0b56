package watcher

import (
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/packs"
)

// startingFor is how long an agent seen starting is read BUSY (tracker.RuleStarting) on a
// screen its pack fits no rule to: a CLI takes seconds to draw its first screen
// (docs/performance.md#starting-agents), and it is working meanwhile.
const startingFor = 8 * time.Second

// launch is the last program the watcher saw start in a pane.
type launch struct {
	at time.Time // when it was seen started; zero: none seen
	// before is the screen read last before it started. What is left of it on screen
	// was drawn before the program ran: history (pastDialog). nil: tmux gave the
	// program a blank screen (a new or respawned pane).
	before []screen.Line
}

// noteLaunch notes a program starting in a pane, from how the pane's front changed since
// its last read (p.read, not yet replaced):
//
//   - a pane that appeared after the watcher's first look, or whose own process is new
//     (respawn-pane): tmux started the program on a blank screen;
//   - the pane's own process, a shell, had the terminal at the last read, and a job has
//     it now: a command typed at its prompt. The foreground is read after the screen is
//     captured (observe), so that screen was drawn before the command started, and what
//     stays of it is history.
//
// Nothing else is a start: a program's children taking the terminal and giving it back,
// a group's leader exec'ing another program (a wrapper, a replayed screen), a new tmux
// list naming the command anew.
func (w *Watcher) noteLaunch(p *pane, info tmux.Pane, fg proc.Foreground, at time.Time) {
	switch {
	case !p.read.done:
		if p.appeared {
			p.launch = launch{at: at}
		}
	case info.PID != p.rec.PID:
		p.launch = launch{at: at}
	case w.shellHandsOver(p.read.front, fg):
		p.launch = launch{at: at, before: p.read.screen.Lines}
	}
}

// shellHandsOver reports whether the pane's shell had its terminal at was and has
// handed it to a job it started at now.
func (w *Watcher) shellHandsOver(was, now proc.Foreground) bool {
	if was.PID != now.PID || was.Group <= 0 || was.Group != was.Own || !now.Moved() {
		return false
	}
	shell, err := w.Packs.Get(FallbackPack)
	return err == nil && shell.HasCommand(now.Name)
}

// starting reports whether the pane's agent counts as starting at a moment: for
// startingFor after it was seen started, and after that for as long as the screen it
// was last read with is blank: a CLI loading draws nothing, longer than startingFor on a
// loaded machine (docs/performance.md#starting-agents).
func (p *pane) starting(at time.Time) bool {
	if p.launch.at.IsZero() || p.pack == nil || p.pack.Name == FallbackPack {
		return false
	}
	return at.Sub(p.launch.at) < startingFor || blank(p.read.screen)
}

// startingResult reads a screen no rule fits BUSY while the agent starts.
func (p *pane) startingResult(r packs.Result, at time.Time) packs.Result {
	if r.State != state.Unknown || !p.starting(at) {
		return r
	}
	r.State, r.Rule, r.Summary = state.Busy, tracker.RuleStarting, "starting"
	return r
}

// startingEnds is when the pane's BUSY starting ends with no new output; zero: it is not
// shown so, or was read at that moment already (a blank screen goes on starting, and
// only its output can end that).
func (p *pane) startingEnds() time.Time {
	if p.tracker.Rule != tracker.RuleStarting || p.launch.at.IsZero() {
		return time.Time{}
	}
	end := p.launch.at.Add(startingFor)
	if !p.tracker.LastRead().Before(end) {
		return time.Time{}
	}
	return end
}

// pastDialog reads a dialog drawn before the program in front started as history: the
// present is what was drawn since, below it. The rows at the top of the screen that are
// rows of the screen before it started, in order (scrolled up, perhaps), are old; when
// the rows below them show no dialog, they are the reading. A dialog the new program
// draws is below those rows, whatever its text.
func (p *pane) pastDialog(sc screen.Screen, r packs.Result) packs.Result {
	if r.State != state.NeedsConfirmation || p.launch.before == nil || p.pack == nil {
		return r
	}
	old := keptRows(p.launch.before, sc.Lines)
	if old == 0 {
		return r
	}
	below := screen.Screen{Lines: sc.Lines[old:], CursorY: -1, Foreground: sc.Foreground}
	if sc.CursorY >= old {
		below.CursorY = sc.CursorY - old
	}
	now := p.pack.Classify(below)
	if now.State == state.NeedsConfirmation {
		return r
	}
	now.Hash, now.Clock = r.Hash, r.Clock // the whole screen moves or holds still
	return now
}

// keptRows counts the rows at the top of now that are the screen before, scrolled up by
// what was printed below it: before's rows from some row on, one after another, down to
// its last row that is not blank (the shell's prompt, which may hold more of the command
// typed now). Rows that read the same but stop short of it were drawn anew (a banner
// drawn again, blank rows): none is kept. (The cursor's row would do, but tmux lists it
// seconds late.)
func keptRows(before, now []screen.Line) int {
	end := lastWritten(before)
	for k := 0; k <= end; k++ {
		if scrolledTo(before[k:end+1], now) {
			return end - k + 1
		}
	}
	return 0
}

// scrolledTo reports whether now begins with old's rows, its last one perhaps longer.
func scrolledTo(old, now []screen.Line) bool {
	if len(now) < len(old) {
		return false
	}
	last := len(old) - 1
	for i, l := range old[:last] {
		if now[i].Text != l.Text {
			return false
		}
	}
	return strings.HasPrefix(now[last].Text, old[last].Text)
}

// lastWritten is the index of the last row that is not blank; -1: none is.
func lastWritten(lines []screen.Line) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i].Text) != "" {
			return i
		}
	}
	return -1
}
