package watcher

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

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
	Push func(line string) error
	// Transition, if set, is called with every transition and the pane's record from
	// before it (the notifier's feed). It must not block.
	Transition func(before store.Pane, tr store.Transition)
	// AgentExited, if set, is called when an agent's CLI ends and its pane's shell is
	// back: no state says so (the prompt is READY), but a person wants to know.
	AgentExited func(rec store.Pane, agent string, at time.Time)
	// Processes lists the processes of a pane, its own first, for pack detection.
	Processes func(pid int) []packs.Process

	mu    sync.RWMutex // guards panes against readers outside the loop (Pane)
	panes map[string]*pane
	// stale: something the snapshot or the status line shows has changed since they were
	// last published. Most frames change nothing, and then publishing costs nothing.
	stale bool
	// summaryPending names a pane whose summary alone changed since the last publish
	// ("": none did). A busy agent's summary changes with every frame ("Thinking… 12s"):
	// such changes are published at most every summaryEvery, states at once.
	summaryPending string
	// tried is when the snapshot was last written, or its writing failed: a pending
	// summary is due summaryEvery after, so a failing disk is retried once a second,
	// not in a loop of frames due at once.
	tried     time.Time
	lastLine  string
	lastPrune time.Time
	pending   store.Batch // not yet written: the store failed

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

// summaryEvery is how often a change of summaries alone is published: each publish
// rewrites the snapshot, and a busy agent's summary changes several times a second.
const summaryEvery = time.Second

// History of panes that are gone is kept this long, then pruned (checked hourly).
const (
	keepGoneHistory = 7 * 24 * time.Hour
	pruneEvery      = time.Hour
)

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
	lastErr := ""
	for {
		f, err := obs.Next(ctx, w.due())
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, tmux.ErrNoServer):
			w.Log.Info().Msg("tmux server has exited")
			return nil
		case err != nil:
			// The same failure every tick would fill the log: say it once, and again
			// when it changes.
			if err.Error() != lastErr {
				w.Log.Warn().Err(err).Msg("observe")
				lastErr = err.Error()
			}
			continue
		}
		lastErr = ""
		if err := w.Step(f); err != nil {
			w.Log.Error().Err(err).Msg("step")
		}
	}
}

// due lists the panes whose state changes with no new output, and when; and a pane whose
// new summary waits to be published, for when it may be.
func (w *Watcher) due() Due {
	d := Due{}
	for id, p := range w.panes {
		if at := p.tracker.Due(); !at.IsZero() {
			d[id] = at
		}
	}
	if w.panes[w.summaryPending] != nil {
		at := w.summaryDue()
		if was, ok := d[w.summaryPending]; !ok || at.Before(was) {
			d[w.summaryPending] = at
		}
	}
	return d
}

// summaryDue is when a pending summary may be published.
func (w *Watcher) summaryDue() time.Time { return w.tried.Add(summaryEvery) }

// Pane returns a pane's record and the pack reading it; safe from any goroutine.
func (w *Watcher) Pane(id string) (store.Pane, *packs.Pack, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	p, ok := w.panes[id]
	if !ok {
		return store.Pane{}, nil, false
	}
	return p.rec, p.pack, true
}

// Step applies one frame.
func (w *Watcher) Step(f Frame) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.panes == nil {
		w.panes = map[string]*pane{}
	}
	// Changes a failed write could not store go out with this frame's.
	batch := w.pending
	w.pending = store.Batch{}
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
			w.stale = true
		}
	}
	if err := w.Store.Apply(batch); err != nil {
		w.pending = batch
		w.tried = f.At // nothing is published until the store works again
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

// publish writes the snapshot when what it would say has changed.
func (w *Watcher) publish(f Frame) error {
	render, fresh := w.renderOptions()
	summaries := w.summaryPending != "" && !f.At.Before(w.summaryDue())
	if !w.stale && !fresh && !summaries {
		return nil
	}
	w.tried = f.At
	snap := statusline.Snapshot{PID: w.PID, Updated: f.At, Panes: make([]store.Pane, 0, len(w.panes))}
	for _, p := range w.panes {
		snap.Panes = append(snap.Panes, p.rec)
	}
	snap.Panes = statusline.Sorted(snap.Panes)
	snap.Line = statusline.Render(snap.Panes, render)
	if w.Push != nil && (snap.Line != w.lastLine || fresh) {
		if err := w.Push(snap.Line); err != nil {
			w.stale = true // pushed again next frame
			return nil
		}
		w.lastLine = snap.Line
	}
	if err := statusline.WriteSnapshot(w.Snapshot, snap); err != nil {
		return err
	}
	w.stale, w.summaryPending = false, ""
	return nil
}
