package tracker

import (
	"cmp"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/state"
)

// Witnesses of a pane's state (docs/inside.md, "Agent hooks"): the screen as its pack reads it, and the
// agent's own hooks.
const (
	WitnessScreen = "screen"
	WitnessHook   = "hook"
	// WitnessAnswer: paneherd itself answered the pane's dialog (a deny ends the turn).
	WitnessAnswer = "answer"
)

// Fresh is how long a hook's claim stands against a screen that says otherwise. Hooks
// are edges: they can be dropped or fire early (Claude's Stop runs before the last lines
// are drawn; a submitted prompt shows its spinner a few hundred ms after
// UserPromptSubmit), and the screen is read within a look (25 ms after output in control
// mode, a tick when polling, 1 s by default). Three seconds covers both with room on a
// loaded machine, and is short enough that a wrong or stale hook never leaves a pane in
// a state its screen denies for longer.
const Fresh = 3 * time.Second

// HookRule is the rule recorded for a state an agent's hook claimed: its words (the
// transition's summary) are the agent's, not what the pack read on the screen.
func HookRule(agent, event string) string { return hookRulePrefix + agent + ":" + event }

// ByHook reports whether rule is a hook's claim (HookRule).
func ByHook(rule string) bool { return strings.HasPrefix(rule, hookRulePrefix) }

const hookRulePrefix = "hook:"

// Edge is one hook event as the tracker takes it.
type Edge struct {
	At time.Time
	// State is what the hook claims; "": nothing, the screen decides from now on (a
	// session ended), and an earlier claim is withdrawn.
	State   state.State
	Rule    string // recorded as the transition's rule ("hook:claude:Notification")
	Summary string
	// TurnEnded: the agent says its turn is over (a READY claim). The screen's settle
	// time guards against an idle prompt drawn for a moment inside a turn; the hook says
	// this one is not, so READY shows as soon as the screen reads the idle prompt, settled
	// or not (turnEnded).
	TurnEnded bool
	// Settle is the pack's settle time: where no rule reads the screen, a turn-end claim
	// takes effect only this long after At, as the screen itself would wait.
	Settle time.Duration
	// Witness is who claims it, shown while the claim holds: WitnessHook ("") or
	// WitnessAnswer.
	Witness string
}

// TurnEndGrace is how long after a turn-end hook the screen may still read the agent at
// work: the hook can fire before the CLI has drawn its last frame (Claude's Stop runs
// before the spinner goes). A screen read at work later than this means the agent goes
// on (a headless run inside the pane ended its own turn), and the claim is dropped.
const TurnEndGrace = time.Second

// claim is a hook's word while it stands: from its effect until Fresh later.
type claim struct {
	Edge
	from, until time.Time
}

// Hook takes an agent hook's event: its claim replaces the previous one and moves the
// state at once (a turn's end once the screen agrees, turnEnded). The screen then
// confirms it or, after Fresh, wins.
func (t *Tracker) Hook(e Edge) (Transition, bool) {
	if t.screen.state == state.Offline {
		return Transition{}, false // a dead pane's agent is gone: a late hook is history
	}
	t.claim = nil
	if e.State != "" {
		from := e.At
		if e.TurnEnded {
			from = from.Add(e.Settle)
		}
		t.claim = &claim{Edge: e, from: from, until: from.Add(Fresh)}
	}
	return t.fuse(e.At)
}

// takesEffect is when claim c shows, and false while it waits for a frame. A turn's end
// shows at once over a screen that reads the idle prompt, waits while the screen reads
// the agent at work (the last frames are still coming) or a dialog, an error or its exit
// (a READY claim never hides those: the next frame decides), and where no rule reads the screen,
// shows after the pack's settle time.
func (t *Tracker) takesEffect(c *claim) (time.Time, bool) {
	if !c.TurnEnded {
		return c.from, true
	}
	switch t.screen.raw {
	case state.Ready:
		return c.At, true
	case state.Busy, state.NeedsConfirmation, state.Error, state.Exited:
		return time.Time{}, false
	}
	return c.from, true
}

// fuse decides what to show at now from the screen's verdict and the standing claim.
func (t *Tracker) fuse(now time.Time) (Transition, bool) {
	// A frame captured before the last hook (or move) may be applied after it: time does
	// not go back, or that frame would undo the hook and history would run backwards.
	if now.Before(t.Since) {
		now = t.Since
	}
	if c := t.claim; c != nil && now.Before(c.At) {
		now = c.At
	}
	t.retire(now)
	t.due = t.screenDue
	if c := t.claim; c != nil {
		if from, ok := t.takesEffect(c); !ok {
			// Waiting for the screen's next frame, which fuses again.
		} else if now.Before(from) {
			t.due = earliest(t.due, from)
		} else {
			t.due = earliest(t.due, c.until)
			t.Witness = cmp.Or(c.Witness, WitnessHook)
			return t.move(c.State, c.Rule, c.Summary, now)
		}
	}
	t.Witness = WitnessScreen
	return t.move(t.screen.state, t.screen.rule, t.screen.summary, now)
}

// retire withdraws the claim once the screen has settled the question:
//   - the claim's time is up (Fresh after it took effect): the screen wins;
//   - the screen says the same: confirmed, the screen holds the state from now on;
//   - the screen shows a dialog or an error the claim would hide, and it is news (the
//     screen came to it after the hook), or, for a turn's end, a frame read after it
//     shows one: a person must see those at once, and a hook's READY is never worth a
//     false READY.
//   - a pack rule reads the agent at work: for a turn's end when the screen was read
//     more than TurnEndGrace after the hook, for a NEEDS_CONFIRMATION claim when it was
//     read after the hook.
//
// A claim whose time ran out against a screen that said otherwise all along is a
// dispute (TakeDispute): the third witness may settle it.
func (t *Tracker) retire(now time.Time) {
	c, s := t.claim, t.screen
	if c == nil {
		return
	}
	attention := s.state == state.NeedsConfirmation || s.state == state.Error
	working := s.readsWork()
	if !now.Before(c.until) && s.state != c.State && !attention && c.State.NeedsAttention() {
		t.disputed = c.State
	}
	switch {
	case !now.Before(c.until),
		s.state == c.State,
		attention && s.since.After(c.At),
		// A dialog, an error or the agent's exit read after a turn's end: news, or the
		// dialog is still there (a denied trust dialog may end the CLI itself).
		c.TurnEnded && (s.raw == state.NeedsConfirmation || s.raw == state.Error || s.raw == state.Exited) && s.read.After(c.At),
		// A pack rule sees the agent at work well after its turn's end: a headless run
		// inside the pane ended its own turn, and READY would be false.
		c.TurnEnded && s.raw == state.Busy && s.read.After(c.At.Add(TurnEndGrace)),
		// A permission notification read after the screen shows the agent at work is
		// late (Claude Code's comes seconds after its dialog, which the person may have
		// answered).
		working && c.State == state.NeedsConfirmation && s.read.After(c.At):
		t.claim = nil
	}
}

// TakeDispute returns, once, the state a hook claimed when its claim ran out while the
// screen said otherwise ("" when none did): the screen holds the state now, yet the two
// witnesses disagreed for Fresh. Only a claim that a person is needed (a dialog, an
// error) is disputed: that is what a screen the pack was not written for hides, and
// a model may side with it. A dialog or an error on the screen is never disputed: no
// model's word may hide those. A claim that the agent works or is done is settled by the
// screen alone: a wrong BUSY would hold for as long as an idle screen stays the same.
func (t *Tracker) TakeDispute() state.State {
	d := t.disputed
	t.disputed = ""
	return d
}

// Changed is when the screen last changed: how long a screen has been shown.
func (t *Tracker) Changed() time.Time { return t.changedAt }

// earliest is the earlier of two moments, zero meaning never.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
