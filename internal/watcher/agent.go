package watcher

import (
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// Agent applies an agent hook's event to its pane at once, and publishes right after,
// so the state shows within milliseconds instead of at the next look (the screen then
// confirms it, or wins after tracker.Fresh). It reports false for a pane the watcher has
// not seen yet; the caller's look will find it.
func (w *Watcher) Agent(ev hooks.AgentEvent, at time.Time) (bool, error) {
	claim := ev.Claim()
	if !claim.Known {
		return w.apply(ev.Pane, nil, at)
	}
	return w.apply(ev.Pane, &tracker.Edge{At: at, State: claim.State, Rule: tracker.HookRule(ev.Agent, ev.Event),
		Summary: ev.Summary, TurnEnded: claim.TurnEnded}, at)
}

// RuleDenied is the rule of a READY that follows a dialog paneherd denied.
const RuleDenied = "answered:deny"

// Denied tells the watcher that paneherd denied the pane's dialog: the builtin agents
// then end their turn and wait at their prompt, so READY shows as soon as the screen
// draws it, as after a turn-end hook. A program that goes on working instead is read at
// work within tracker.TurnEndGrace, and the claim is dropped.
func (w *Watcher) Denied(paneID string, at time.Time) (bool, error) {
	return w.apply(paneID, &tracker.Edge{At: at, State: state.Ready, Rule: RuleDenied, Summary: "dialog denied",
		TurnEnded: true, Witness: tracker.WitnessAnswer}, at)
}

// apply gives edge (nil: none, only publish) to the pane's tracker and publishes.
func (w *Watcher) apply(paneID string, edge *tracker.Edge, at time.Time) (bool, error) {
	if edge == nil {
		return w.change(paneID, at, nil)
	}
	return w.change(paneID, at, func(p *pane, batch *store.Batch) {
		edge.Settle = packs.DefaultSettle
		if p.pack != nil {
			edge.Settle = p.pack.Settle.Duration
		}
		before := p.rec
		tr, moved := p.tracker.Hook(*edge)
		w.record(p, tr, moved, batch)
		p.takeState()
		if withoutSummary(p.rec) != withoutSummary(before) {
			w.stale = true
			put(batch, p.rec)
		} else if p.rec.Summary != before.Summary && w.summaryPending == "" {
			w.summaryPending = p.rec.ID
		}
	})
}

// change runs fn on a pane between two looks, under the watcher's locks, and publishes
// what it changed (fn adds to the batch, and marks w.stale). It reports false for a pane
// the watcher does not have. fn nil: only what waits to be stored goes.
func (w *Watcher) change(paneID string, at time.Time, fn func(p *pane, batch *store.Batch)) (bool, error) {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	render, gen := w.render.LoadVersion()
	batch, recs, known := w.changeLocked(paneID, at, gen != w.pushedGen, fn)
	if !known {
		return false, nil
	}
	return true, w.commit(at, batch, recs, render, gen)
}

func (w *Watcher) changeLocked(paneID string, at time.Time, renderChanged bool, fn func(p *pane, batch *store.Batch)) (store.Batch, []wire.Pane, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.panes[paneID]
	if p == nil {
		return store.Batch{}, nil, false
	}
	batch := w.pending
	w.pending = store.Batch{}
	if fn == nil {
		return batch, nil, true
	}
	fn(p, &batch)
	return batch, w.toPublish(at, renderChanged), true
}
