package watcher

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

// Watcher turns frames into states, history and the snapshot.
type Watcher struct {
	Packs    *packs.Set
	Store    *store.Store
	Snapshot string // path of the snapshot file
	PID      int    // written into the snapshot
	Log      zerolog.Logger
	// Push, if set, is called with the status line whenever it changes (push mode: the
	// daemon sets a tmux option and tmux redraws).
	Push func(line string)
	// Processes lists the processes of a pane, its own first, for pack detection.
	Processes func(pid int) []packs.Process

	panes     map[string]*pane
	lastSnap  []byte
	lastLine  string
	lastPrune time.Time

	renderMu  sync.Mutex
	render    statusline.Options
	renderNew bool // options changed since the last publish: push even an unchanged line
}

// SetRender changes how the status line is rendered (the user's options); the next frame
// uses it, and pushes its line even if unchanged. Safe to call from another goroutine.
func (w *Watcher) SetRender(o statusline.Options) {
	w.renderMu.Lock()
	w.render, w.renderNew = o, true
	w.renderMu.Unlock()
}

func (w *Watcher) renderOptions() (statusline.Options, bool) {
	w.renderMu.Lock()
	defer w.renderMu.Unlock()
	fresh := w.renderNew
	w.renderNew = false
	return w.render, fresh
}

// History of panes that are gone is kept this long, then pruned (checked hourly).
const (
	keepGoneHistory = 7 * 24 * time.Hour
	pruneEvery      = time.Hour
)

// pane is what the watcher remembers of one pane between frames.
type pane struct {
	rec     store.Pane
	tracker *tracker.Tracker
	pack    *packs.Pack
	packKey string  // what the pack was chosen from; a change means choose again
	read    reading // the last screen read, reused while the screen stays the same
	guessed bool    // the pack came from the screen or the fallback: look again next frame
}

// Restore loads the panes a previous daemon left in the store, so their history and
// states carry on; panes that vanished meanwhile go OFFLINE at the first frame.
func (w *Watcher) Restore() error {
	w.panes = map[string]*pane{}
	recs, err := w.Store.Panes()
	if err != nil {
		return fmt.Errorf("watcher: restore: %w", err)
	}
	for _, r := range recs {
		w.panes[r.ID] = &pane{rec: r, tracker: tracker.New(state.State(r.State), r.Since)}
	}
	return nil
}

// Run steps through frames until the context ends (nil) or the tmux server goes away
// (nil: the daemon's job is done). Other observer errors are logged and retried.
func (w *Watcher) Run(ctx context.Context, obs Observer) error {
	for {
		f, err := obs.Next(ctx, w.due())
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, tmux.ErrNoServer):
			w.Log.Info().Msg("tmux server has exited")
			return nil
		case err != nil:
			w.Log.Warn().Err(err).Msg("observe")
			continue
		}
		if err := w.Step(f); err != nil {
			w.Log.Error().Err(err).Msg("step")
		}
	}
}

// due is the earliest time a pane's state changes with no new output.
func (w *Watcher) due() time.Time {
	var first time.Time
	for _, p := range w.panes {
		if d := p.tracker.Due(); !d.IsZero() && (first.IsZero() || d.Before(first)) {
			first = d
		}
	}
	return first
}

// Step applies one frame.
func (w *Watcher) Step(f Frame) error {
	if w.panes == nil {
		w.panes = map[string]*pane{}
	}
	var batch store.Batch
	seen := make(map[string]bool, len(f.Panes))
	for _, info := range f.Panes {
		seen[info.ID] = true
		if w.observe(info, f, &batch) {
			p := w.panes[info.ID]
			p.rec.LastSeen = f.At
			batch.Put = append(batch.Put, p.rec)
		}
	}
	for id, p := range w.panes {
		if !seen[id] {
			tr, moved := p.tracker.Dead(f.At, tracker.RuleGone, "pane closed")
			w.record(p, tr, moved, &batch)
			batch.Delete = append(batch.Delete, id)
			delete(w.panes, id)
		}
	}
	if err := w.Store.Apply(batch); err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	if f.At.Sub(w.lastPrune) >= pruneEvery {
		w.lastPrune = f.At
		if err := w.Store.PruneHistory(f.At.Add(-keepGoneHistory)); err != nil {
			w.Log.Warn().Err(err).Msg("prune history")
		}
	}
	return w.publish(f)
}

// observe updates one pane and reports whether its stored record changed.
func (w *Watcher) observe(info tmux.Pane, f Frame, batch *store.Batch) bool {
	p, known := w.panes[info.ID]
	if !known || p.rec.PID != info.PID && p.rec.PID != 0 {
		// New, or the id was reused by a new server since the record was written.
		p = &pane{tracker: tracker.New("", f.At)}
		w.panes[info.ID] = p
	}
	before := p.rec
	raw, captured := f.Screens[info.ID]
	w.read(p, info, raw)
	p.rec = describe(info, p)
	var tr tracker.Transition
	var moved bool
	switch {
	case info.Dead:
		tr, moved = p.tracker.Dead(f.At, tracker.RuleDead, deathSummary(info))
	case captured:
		tr, moved = p.tracker.Observe(observation(p, f.At))
	}
	w.record(p, tr, moved, batch)
	p.rec.State, p.rec.Since, p.rec.Rule, p.rec.Summary = string(p.tracker.State), p.tracker.Since, p.tracker.Rule, p.tracker.Summary
	return !known || changedRecord(before, p.rec)
}

func observation(p *pane, at time.Time) tracker.Observation {
	o := tracker.Observation{At: at, Hash: p.read.hash, Result: p.read.result, Settle: packs.DefaultSettle}
	if p.pack != nil {
		o.Settle, o.Stall = p.pack.Settle.Duration, p.pack.Stall.Duration
	}
	return o
}

// record appends a transition to the batch and logs it.
func (w *Watcher) record(p *pane, tr tracker.Transition, moved bool, batch *store.Batch) {
	if !moved {
		return
	}
	batch.Transitions = append(batch.Transitions, store.Transition{
		PaneID: p.rec.ID, At: tr.At, From: string(tr.From), To: string(tr.To), Rule: tr.Rule, Summary: tr.Summary,
	})
	w.Log.Info().Str("pane", p.rec.ID).Str("name", p.rec.Name).Str("from", string(tr.From)).
		Str("to", string(tr.To)).Str("rule", tr.Rule).Str("summary", tr.Summary).Msg("transition")
}

// publish writes the snapshot when what it would say has changed.
func (w *Watcher) publish(f Frame) error {
	snap := statusline.Snapshot{PID: w.PID, Panes: make([]store.Pane, 0, len(w.panes))}
	for _, p := range w.panes {
		snap.Panes = append(snap.Panes, p.rec)
	}
	snap.Panes = statusline.Sorted(snap.Panes)
	render, fresh := w.renderOptions()
	snap.Line = statusline.Render(snap.Panes, render)
	if w.Push != nil && (snap.Line != w.lastLine || fresh) {
		w.Push(snap.Line)
	}
	w.lastLine = snap.Line
	body, _ := json.Marshal(snap)
	if bytes.Equal(body, w.lastSnap) {
		return nil
	}
	w.lastSnap = body
	snap.Updated = f.At
	return statusline.WriteSnapshot(w.Snapshot, snap)
}

// reading is one screen as read by a pack. Most panes sit still most of the time, so the
// reading is kept and reused while the screen, foreground command and pack are the same.
type reading struct {
	hash   uint64
	fg     string
	pack   *packs.Pack // nil until the first reading
	result packs.Result
}

// read classifies the pane's screen unless it is the one read last time.
func (w *Watcher) read(p *pane, info tmux.Pane, raw string) {
	h := hash(raw)
	if p.read.pack != nil && h == p.read.hash && info.Command == p.read.fg && packKey(info) == p.packKey {
		return
	}
	sc := screen.Parse(raw)
	sc.Foreground, sc.CursorY = info.Command, info.CursorY
	w.choosePack(p, info, sc)
	p.read = reading{hash: h, fg: info.Command, pack: p.pack, result: packs.Result{State: state.Unknown}}
	if p.pack != nil {
		p.read.result = p.pack.Classify(sc)
	}
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
