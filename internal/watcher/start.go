package watcher

import (
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/packs"
)

// startingFor is how long an agent seen starting is read BUSY (tracker.RuleStarting) on
// a screen no rule fits: a CLI takes seconds to draw its first screen
// (docs/performance.md#starting-agents), and it is working meanwhile.
const startingFor = 8 * time.Second

// front names the process in front of a pane: the pane's own process and the group in
// front of its terminal, or, when that group is unknown, the command tmux names. Another
// front is another program: a CLI started again, or a respawned pane.
type front struct {
	pid, group int
	command    string
}

func frontOf(info tmux.Pane, fg proc.Foreground) front {
	if fg.Group > 0 {
		return front{pid: info.PID, group: fg.Group}
	}
	return front{pid: info.PID, command: info.Command}
}

// noteStart notes an agent coming to the front of a pane: a new process where another's
// screen was read (it may have left a dialog on screen, which is history now: before),
// or a pane that appeared after the watcher's first look (an agent started in a new
// window). p.pack is the one chosen for the new screen; p.read is still the last one.
func (w *Watcher) noteStart(p *pane, now front, at time.Time) {
	if p.read.done && now == p.read.front {
		return
	}
	p.started, p.before = time.Time{}, nil
	if p.pack == nil || p.pack.Name == FallbackPack {
		return
	}
	switch {
	case p.read.done:
		p.started, p.before = at, p.read.screen.Lines
	case w.looked:
		p.started = at
	}
}

// starting reports whether the pane's agent counts as starting at a moment.
func (p *pane) starting(at time.Time) bool {
	if p.started.IsZero() {
		return false
	}
	if at.Sub(p.started) >= startingFor {
		p.started = time.Time{}
		return false
	}
	return true
}

// startingResult reads a screen no rule fits BUSY while the agent starts.
func (p *pane) startingResult(r packs.Result, at time.Time) packs.Result {
	if r.State != state.Unknown || !p.starting(at) {
		return r
	}
	r.State, r.Rule, r.Summary = state.Busy, tracker.RuleStarting, "starting"
	return r
}

// pastDialog reads a dialog drawn before the agent in front started as history: the
// present is what was drawn since. The rows at the top of the screen that are rows of
// the screen before it started, in order (scrolled up, perhaps), are old; when the
// dialog the whole screen shows is not in the rows below them, the rows below are the
// reading. A dialog the new process draws is below those rows, whatever its text.
func (p *pane) pastDialog(sc screen.Screen, r packs.Result) packs.Result {
	if r.State != state.NeedsConfirmation || p.before == nil {
		return r
	}
	old := keptRows(p.before, sc.Lines)
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

// keptRows counts the rows at the top of now that are rows of before, one after another:
// before's rows from some row on, scrolled up to the top by what was printed below them.
func keptRows(before, now []screen.Line) int {
	best := 0
	for k := range before {
		n := 0
		for n < len(now) && k+n < len(before) && now[n].Text == before[k+n].Text {
			n++
		}
		best = max(best, n)
	}
	return best
}
