package watcher

import (
	"hash/maphash"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// pane is what the watcher remembers of one pane between frames.
type pane struct {
	rec     wire.Pane
	tracker *tracker.Tracker
	pack    *packs.Pack
	packKey string  // what the pack was chosen from; a change means choose again
	guessed bool    // the pack came from the screen or the fallback: look again as it changes
	read    reading // the last screen read, reused while the screen stays the same
	// summary is the tracker's summary that rec.Summary holds masked: masking runs only
	// when it changes, not at every look at every pane.
	summary string
	// launch is the last program seen starting in the pane (start.go); appeared: the
	// pane was new since the watcher's first look, so whatever runs in it started then.
	launch   launch
	appeared bool
	// told is what its agent's transcript or session file last told of its context
	// (SetContext); it outranks the screen's figure.
	told wire.Context
}

// reading is one screen as read by a pack. Most panes sit still most of the time, so the
// reading is kept and reused while the screen, foreground command and pack are the same.
type reading struct {
	raw    uint64 // hash of the capture as tmux gave it
	fg     string
	front  proc.Foreground // who had the terminal (noteLaunch)
	away   bool            // a command ran in front of the pane's shell (quietCommand)
	done   bool
	result packs.Result
	// context is the CLI's context figure on the screen (its pack's [context] screen),
	// whatever rule read the screen.
	context packs.ScreenContext
	screen  screen.Screen // as parsed: a model may be asked about it (Unsure, Screen)
	// disputed is what an agent hook claimed until its claim ran out against this
	// reading (tracker.TakeDispute; "": none): a model's reading that sides with the
	// hook may take this reading's place.
	disputed state.State
}

// update updates one pane and reports whether its stored record changed.
func (w *Watcher) update(info tmux.Pane, f observe.Frame, batch *store.Batch) bool {
	p, known := w.panes[info.ID]
	if known && p.rec.Server != "" && p.rec.Server != f.Server {
		// Pane ids restart at %0 with a new server: this record is a pane that died with
		// the old one, not this pane.
		tr, moved := p.tracker.Dead(f.At, tracker.RuleGone, "tmux server restarted")
		w.record(p, tr, moved, batch)
		known = false
	}
	if !known {
		p = &pane{tracker: tracker.New("", f.At), appeared: w.looked}
		w.panes[info.ID] = p
	}
	before, packBefore := p.rec, p.pack
	raw, captured := f.Screens[info.ID]
	if captured {
		w.read(p, info, f.Foreground[info.ID], raw, f.At)
	}
	p.forgetTold(before, info)
	p.rec = describe(info, p, f.Server)
	w.contextMoved(before, p.rec)
	if agentExited(packBefore, p.pack, before.PID, info.PID) && w.AgentExited != nil {
		w.AgentExited(p.rec, packBefore.Name, f.At)
	}
	var tr tracker.Transition
	var moved bool
	switch {
	case info.Dead:
		tr, moved = p.tracker.Dead(f.At, tracker.RuleDead, deathSummary(info))
	case captured || (p.read.done && (!f.Moved[info.ID].IsZero() || f.Unchanged[info.ID])):
		o := observation(p, f.At)
		o.Moved, o.Changed = f.Moved[info.ID], f.Printed[info.ID]
		tr, moved = p.tracker.Observe(o)
		w.offerDispute(p)
	}
	w.record(p, tr, moved, batch)
	p.takeState()
	switch {
	case !known || withoutSummary(p.rec) != withoutSummary(before):
		w.stale = true
	case p.rec.Summary != before.Summary && w.summaryPending == "":
		w.summaryPending = info.ID
	}
	return !known || changedRecord(before, p.rec)
}

// takeState copies the tracker's state into the pane's record, its summary masked: a
// line of a screen, it is stored, published and logged (secrets.Mask).
func (p *pane) takeState() {
	t := p.tracker
	p.rec.State, p.rec.Since, p.rec.Rule, p.rec.Witness = string(t.State), t.Since, t.Rule, t.Witness
	if t.Summary != p.summary || t.Summary == "" {
		p.summary, p.rec.Summary = t.Summary, secrets.Mask(t.Summary)
	}
	if t.Rule == RuleModel {
		p.rec.Witness = WitnessModel
	}
}

func observation(p *pane, at time.Time) tracker.Observation {
	r := p.startingResult(p.read.result, at)
	o := tracker.Observation{At: at, Hash: r.Hash, Clock: r.Clock, Result: r, Settle: packs.DefaultSettle}
	if p.pack != nil {
		o.Settle, o.SettleAfterWork, o.Stall = p.pack.Settle.Duration, p.pack.SettleAfterWork.Duration, p.pack.Stall.Duration
	}
	if r.Settle > 0 {
		o.Settle = r.Settle // the idle screen is final (packs.Rule.Settle)
	}
	if p.starting(at) {
		o.SettleAfterWork = 0 // what an agent starting draws ends no work (a restart's own busy sign)
	}
	if r.Rule == RuleModel {
		o.Stall = 0 // a model's BUSY is no pack's busy sign: a frozen screen proves nothing stuck
	}
	return o
}

// read classifies the pane's screen unless it is the one read last time.
func (w *Watcher) read(p *pane, info tmux.Pane, fg proc.Foreground, raw string, at time.Time) {
	h := hash(raw)
	if p.read.done && h == p.read.raw && info.Command == p.read.fg && fg.Moved() == p.read.away && packKey(info) == p.packKey {
		return
	}
	sc := screen.Parse(raw)
	sc.Foreground = info.Command
	if info.CursorShown {
		// A hidden cursor's position means nothing: CLIs park it anywhere.
		sc.CursorY = info.CursorY
	}
	w.choosePack(p, info, sc)
	w.noteLaunch(p, info, fg, at)
	p.read = reading{raw: h, fg: info.Command, front: fg, away: fg.Moved(), done: true, result: packs.Result{State: state.Unknown, Hash: h}, screen: sc}
	if p.pack != nil {
		whole := p.pack.Classify(sc)
		p.read.context = whole.Context
		r := p.pastDialog(sc, whole)
		p.read.result = quietCommand(p.pack, fg, info.Command, sc, r)
	}
	if p.read.result.State == state.Unknown && w.Unsure != nil {
		w.Unsure(info.ID, sc, h, time.Time{})
	}
}

// offerDispute hands the screen to Unsure when an agent hook's claim just ran out against
// what the pack reads on it: the hook and the screen disagreed for tracker.Fresh, and a
// model may settle which was right. The screen has been shown since it last changed.
func (w *Watcher) offerDispute(p *pane) {
	claimed := p.tracker.TakeDispute()
	if claimed == "" || !p.read.done || w.Unsure == nil {
		return
	}
	p.read.disputed = claimed
	w.Unsure(p.rec.ID, p.read.screen, p.read.raw, p.tracker.Changed())
}

// record appends a transition to the batch and logs it, its summary masked as the
// record's is.
func (w *Watcher) record(p *pane, tr tracker.Transition, moved bool, batch *store.Batch) {
	if !moved {
		return
	}
	st := wire.Transition{PaneID: p.rec.ID, At: tr.At, From: string(tr.From), To: string(tr.To), Rule: tr.Rule, Summary: secrets.Mask(tr.Summary)}
	batch.Transitions = append(batch.Transitions, st)
	if w.Transition != nil {
		w.Transition(p.rec, st)
	}
	w.Log.Info().Str("pane", p.rec.ID).Str("name", p.rec.Name).Str("from", string(tr.From)).
		Str("to", string(tr.To)).Str("rule", tr.Rule).Str("summary", st.Summary).Msg("transition")
}

// hash fingerprints a capture, to tell whether it changed; it is never stored.
func hash(s string) uint64 { return maphash.String(seed, s) }

var seed = maphash.MakeSeed()

// agentExited reports an agent's CLI ending in a pane whose own process lives on: the
// pane's pack fell back to the shell's. A respawned pane (new pid) is a new start, not
// an exit.
func agentExited(before, after *packs.Pack, pidBefore, pidAfter int) bool {
	return before != nil && after != nil && before.Name != FallbackPack && after.Name == FallbackPack &&
		pidBefore == pidAfter
}
