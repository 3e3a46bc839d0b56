package watcher

import (
	"time"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// RuleModel is the rule of a state a language model read off a screen no rule of its
// pack fits (the optional third witness, after the packs and the agents' hooks).
const RuleModel = tracker.RuleModel

// WitnessModel says a model's reading holds the state (wire.Pane.Witness).
const WitnessModel = "model"

// Model applies a model's reading of a pane's screen, if that screen is still the one
// the pane shows (hash, as Unsure gave it) and its pack still cannot settle it (UNKNOWN,
// or a hook disputed it and the model sides with the hook: reading.takes): the reading
// takes the place of the pack's for that screen, and the tracker goes on from it (READY
// still waits for the screen to settle). It reports whether the reading was taken; a pane
// that moved on keeps its pack's state.
func (w *Watcher) Model(paneID string, hash uint64, st state.State, summary string, at time.Time) (bool, error) {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	render, gen := w.render.LoadVersion()
	batch, recs, taken := w.applyModel(paneID, hash, st, summary, at, gen != w.pushedGen)
	if !taken {
		return false, nil
	}
	return true, w.commit(at, batch, recs, render, gen)
}

func (w *Watcher) applyModel(paneID string, hash uint64, st state.State, summary string, at time.Time, renderChanged bool) (store.Batch, []wire.Pane, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.panes[paneID]
	if p == nil || !unsettled(p, hash) || !p.read.takes(st) {
		return store.Batch{}, nil, false
	}
	batch := w.pending
	w.pending = store.Batch{}
	p.read.result = packs.Result{State: st, Rule: RuleModel, Summary: summary, Hash: p.read.result.Hash}
	before := p.rec
	tr, moved := p.tracker.Observe(observation(p, at))
	w.record(p, tr, moved, &batch)
	p.takeState()
	if changedRecord(before, p.rec) {
		w.stale = true
		put(&batch, p.rec)
	}
	return batch, w.toPublish(at, renderChanged), true
}

// Shows reports whether the pane still shows the screen of that reading, which its pack
// cannot settle: a question about any other is no longer worth asking.
func (w *Watcher) Shows(paneID string, hash uint64) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	p := w.panes[paneID]
	return p != nil && unsettled(p, hash)
}

// unsettled: the pane shows the screen of that hash, and its pack reads it UNKNOWN or a
// hook disputed its reading.
func unsettled(p *pane, hash uint64) bool {
	return p.read.done && p.read.raw == hash && (p.read.result.State == state.Unknown || p.read.disputed != "")
}

// takes reports whether a model's reading st may replace this one: any known state for a
// screen no rule fits; for a disputed one, only the hook's claim (the model sides with the
// hook; siding with the pack changes nothing, and a third state is a guess).
func (r reading) takes(st state.State) bool {
	if r.disputed != "" {
		return st == r.disputed && st != r.result.State
	}
	return st != state.Unknown && st != r.result.State
}

// Screen is the screen the pane showed at its last look, as parsed, for a model to read
// (a notification's words); false for a pane not seen or not captured yet.
func (w *Watcher) Screen(paneID string) (screen.Screen, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	p := w.panes[paneID]
	if p == nil || !p.read.done {
		return screen.Screen{}, false
	}
	return p.read.screen, true
}
