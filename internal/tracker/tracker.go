// Package tracker turns a pane's stream of classified screens into its state, with the
// hysteresis of docs/inside.md, "States": BUSY, NEEDS_CONFIRMATION, ERROR and OFFLINE are entered at
// once; READY only once the screen has held still for the pack's settle time; a screen
// that keeps changing with no READY evidence is BUSY; a BUSY screen frozen longer than the
// pack's stall time is STALLED. An agent's hook is a second witness (hook.go): its event
// moves the state at once, the screen confirms it, and where they disagree the screen wins
// after Fresh.
package tracker

import (
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/packs"
)

// Rules the tracker itself fires, recorded in transitions like a pack's rules.
const (
	RuleChanging = "screen-changing" // no rule matched, but the screen is moving
	RuleStalled  = "stalled"         // busy, yet frozen beyond the stall time
	RuleNoMatch  = "no-rule-matched"
	RuleDead     = "pane-dead"
	RuleGone     = "pane-gone"
)

// RuleStarting is the rule a pane is BUSY by while the agent in front of it has just
// started and its screen fits no rule of its pack yet (the watcher reads it so), or a
// pack's rule for a screen its CLI draws while it starts: it is working, but on no task
// of anyone's, so its end is no task finished.
const RuleStarting = "starting"

// RuleModel is the rule of a state a language model read off a screen no rule of its
// pack fits (the watcher's third witness, after the packs and the agents' hooks).
const RuleModel = "model"

// Tracker holds one pane's state between observations.
type Tracker struct {
	// State, Since, Rule and Summary are what paneherd shows: the screen's verdict, or a
	// fresh hook's claim (hook.go).
	State   state.State
	Since   time.Time
	Rule    string
	Summary string
	// Witness says who holds the state shown: WitnessScreen or WitnessHook.
	Witness string

	screen    verdict     // what the screen alone says
	claim     *claim      // the last hook's word while it stands; nil: none
	disputed  state.State // a claim that ran out against the screen (TakeDispute)
	hash      uint64
	changedAt time.Time
	// afterWork: the screen's last change ended work the screen showed (see settle).
	afterWork bool
	clock     string    // the pack's clock as last read; "": none seen
	clockAt   time.Time // when it last advanced (changed to another text)
	seen      bool      // at least one observation
	moved     bool      // the screen changed since we started watching
	movedAt   time.Time // the pane's last skipped output (Observation.Moved)
	screenDue time.Time // when the screen's verdict changes if it holds still; zero: never
	due       time.Time // the earlier of screenDue and the claim's next moment
}

// verdict is the state the screen supports, with the hysteresis of §4.
type verdict struct {
	state state.State
	since time.Time // when the screen's verdict last changed state
	read  time.Time // when the screen was last read
	// raw is what the pack read in the last frame, before the settle time: READY for an
	// idle prompt not yet settled, "" when no rule matched.
	raw     state.State
	rule    string
	summary string
}

// readsWork: a rule read the agent at work (not mere movement).
func (v verdict) readsWork() bool {
	return v.state == state.Busy && v.rule != RuleChanging && v.rule != ""
}

// Due is when the pane's state may change with no new output (see dueAfter), or when a
// hook's claim takes effect or lapses. The watcher looks again then instead of at the
// next tick. Zero: never.
func (t *Tracker) Due() time.Time { return t.due }

// AtWork: the state shown is the agent at work, by a pack's rule or its hook (BUSY), not
// output moving that no rule reads, an agent starting, or a model's reading (no busy sign
// of its pack: docs/model.md).
func (t *Tracker) AtWork() bool {
	switch t.Rule {
	case RuleChanging, RuleStarting, RuleModel, "":
		return false
	}
	return t.State == state.Busy
}

// LastRead is when the screen was last read (the last observation's At).
func (t *Tracker) LastRead() time.Time { return t.screen.read }

// Observation is one look at a pane.
type Observation struct {
	At     time.Time
	Result packs.Result
	Hash   uint64 // of the screen's text: equal hashes mean nothing moved
	// Clock is the pack's clock text (packs.Result.Clock): one that advances proves the
	// CLI alive, even when the screen the pack reads holds still (a status line's clock
	// sits in an ignored footer). "": none.
	Clock string
	// Moved is when the pane last printed output an observer skipped, because it
	// repeated earlier output (an animation: observe.Frame.Moved); zero: none since the
	// last observation. It proves the CLI alive and its output changing, as a moving
	// screen does; it is raw output, ignored footers too, so it never delays a READY
	// screen's settling, which goes by Hash alone.
	Moved time.Time
	// Changed is when the screen last changed, where the observer knows it came before At
	// (the pane's last output before its capture): a READY screen's stillness counts from
	// it. Zero: At.
	Changed time.Time
	Settle  time.Duration
	// SettleAfterWork replaces Settle for an idle screen that follows one a pack rule read
	// as the agent at work, or a dialog (packs.Pack.SettleAfterWork); 0: Settle.
	SettleAfterWork time.Duration
	Stall           time.Duration // 0: never stalls
}

// Transition is a change of state.
type Transition struct {
	From, To state.State
	Rule     string
	Summary  string
	At       time.Time
}

// New starts a tracker in UNKNOWN, or in a state remembered from an earlier daemon run.
func New(st state.State, since time.Time) *Tracker { return Resume(st, since, "", "") }

// Resume starts a tracker in the state, rule and summary an earlier daemon run stored;
// the screen holds it until it says otherwise.
func Resume(st state.State, since time.Time, rule, summary string) *Tracker {
	if st == "" {
		st = state.Unknown
	}
	v := verdict{state: st, since: since, rule: rule, summary: summary}
	return &Tracker{State: st, Since: since, Rule: rule, Summary: summary, Witness: WitnessScreen, screen: v}
}

// Observe feeds one observation and returns the transition it caused, if any.
func (t *Tracker) Observe(o Observation) (Transition, bool) {
	seen := t.seen
	if !t.seen || o.Hash != t.hash {
		t.moved, t.afterWork = t.seen, t.endsWork()
		t.hash, t.changedAt, t.seen = o.Hash, o.At, true
		if !o.Changed.IsZero() && o.Changed.Before(o.At) {
			t.changedAt = o.Changed
		}
	}
	if o.Moved.After(t.movedAt) && seen { // the first look at a pane is not movement
		t.moved, t.movedAt = true, o.Moved
	}
	if o.Clock != "" && o.Clock != t.clock {
		t.clock, t.clockAt = o.Clock, o.At
	}
	still := o.At.Sub(t.changedAt)
	to, rule, summary := t.decide(o, still)
	t.judge(to, rule, summary, o.At)
	t.screen.raw = o.Result.State
	t.screenDue = t.dueAfter(o, to, rule)
	return t.fuse(o.At)
}

// judge takes the screen's new verdict.
func (t *Tracker) judge(to state.State, rule, summary string, at time.Time) {
	if to != t.screen.state {
		t.screen.since = at
	}
	t.screen.state, t.screen.rule, t.screen.summary, t.screen.read = to, rule, summary, at
}

// dueAfter is when the state that was just decided changes if the screen holds still:
// a READY screen settles, output that stopped moving is no longer BUSY, a frozen BUSY
// screen is STALLED. An observer that looks only when panes print must look then.
func (t *Tracker) dueAfter(o Observation, to state.State, rule string) time.Time {
	switch {
	case o.Result.State == state.Ready && to != state.Ready:
		return t.changedAt.Add(t.settle(o))
	case to == state.Busy && rule == RuleChanging:
		return t.lastMove().Add(o.Settle)
	case to == state.Busy && o.Stall > 0:
		return t.alive().Add(o.Stall)
	}
	return time.Time{}
}

// decide picks the state an observation supports, given how long the screen has held still.
func (t *Tracker) decide(o Observation, still time.Duration) (state.State, string, string) {
	r := o.Result
	switch r.State {
	case state.Busy:
		// A clock that advanced within the stall time proves the CLI alive, and one that
		// moves takes a STALLED pane back to BUSY.
		if o.Stall > 0 && o.At.Sub(t.alive()) >= o.Stall {
			return state.Stalled, RuleStalled, r.Summary
		}
		return r.State, r.Rule, r.Summary
	case state.NeedsConfirmation, state.Error, state.Exited:
		return r.State, r.Rule, r.Summary
	case state.Ready:
		if still >= t.settle(o) || t.screen.state == state.Ready {
			return state.Ready, r.Rule, r.Summary
		}
		// Not settled yet: hold the current state rather than flash a false READY.
		return t.screen.state, t.screen.rule, t.screen.summary
	}
	// No rule: movement is the only evidence. The first look at a pane is not movement.
	if t.moved && o.At.Sub(t.lastMove()) < o.Settle {
		return state.Busy, RuleChanging, "output changing"
	}
	return state.Unknown, RuleNoMatch, ""
}

// settle is how long the idle screen o reads must hold still before it counts: the
// pack's SettleAfterWork, when shorter, if its last change ended work the screen showed,
// else the whole Settle.
func (t *Tracker) settle(o Observation) time.Duration {
	if t.afterWork && o.SettleAfterWork > 0 && o.SettleAfterWork < o.Settle {
		return o.SettleAfterWork
	}
	return o.Settle
}

// endsWork says whether a change of the screen now would end work the screen showed:
// the frame before it was read as the agent at work by a pack's rule, or as a dialog.
// Not a frame read as an idle prompt (one just submitted: its text cleared before the
// agent draws its busy sign), nor moving output no rule reads, an agent starting or a
// model's reading.
func (t *Tracker) endsWork() bool {
	s := t.screen
	if s.raw == state.Ready {
		return false
	}
	return s.state == state.NeedsConfirmation || s.readsWork() && s.rule != RuleStarting && s.rule != RuleModel
}

// alive is the last sign of life: the screen changing or the clock advancing.
func (t *Tracker) alive() time.Time {
	if t.clockAt.After(t.lastMove()) {
		return t.clockAt
	}
	return t.lastMove()
}

// lastMove is when the screen last changed, or the pane last printed skipped output.
func (t *Tracker) lastMove() time.Time {
	if t.movedAt.After(t.changedAt) {
		return t.movedAt
	}
	return t.changedAt
}

// Dead marks the pane's process as gone (remain-on-exit) or the pane as vanished.
func (t *Tracker) Dead(at time.Time, rule, summary string) (Transition, bool) {
	t.due, t.screenDue, t.claim = time.Time{}, time.Time{}, nil // nothing more will come to look at
	t.judge(state.Offline, rule, summary, at)
	t.Witness = WitnessScreen
	return t.move(state.Offline, rule, summary, at)
}

func (t *Tracker) move(to state.State, rule, summary string, at time.Time) (Transition, bool) {
	t.Summary = summary
	if to == t.State {
		return Transition{}, false
	}
	tr := Transition{From: t.State, To: to, Rule: rule, Summary: summary, At: at}
	t.State, t.Since, t.Rule = to, at, rule
	return tr, true
}
