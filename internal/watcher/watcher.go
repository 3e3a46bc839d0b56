// Package watcher is the daemon's state loop: it takes the frames an observer makes of a
// tmux server, reads each screen with the pane's pack, keeps each pane's state with a
// tracker, records changes in the store and publishes the snapshot that `status` reads.
package watcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/live"
	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

// Store is what the watcher needs of the daemon's store (*store.Store).
type Store interface {
	Apply(b store.Batch) error
	PruneHistory(olderThan time.Time) error
	Panes() ([]wire.Pane, error)
	ReadOnly() string  // why every write will fail ("": writes are tried)
	HistoryLimit() int // transitions kept per pane; Apply drops the older
}

// Watcher turns frames into states, history and the snapshot.
type Watcher struct {
	Packs    *packs.Set
	Store    Store
	Snapshot string // path of the snapshot file
	PID      int    // written into the snapshot
	Log      zerolog.Logger
	// Push, if set, is called with the status line whenever it changes (push mode: the
	// daemon sets a tmux option and tmux redraws).
	Push func(line string) error
	// Transition, if set, is called with every transition and the pane's record from
	// before it (the notifier's feed). It must not block.
	Transition func(before wire.Pane, tr wire.Transition)
	// AgentExited, if set, is called when an agent's CLI ends and its pane's shell is
	// back: no state says so (the prompt is READY), but a person wants to know.
	AgentExited func(rec wire.Pane, agent string, at time.Time)
	// Unsure, if set, is called with a pane's screen that its pack cannot settle, and the
	// hash Model wants back with a reading of it: a screen newly read that no rule fits
	// (UNKNOWN; shown is zero: from now), or one an agent hook's claim disagreed with
	// until the claim ran out (shown: since when the pane has shown it). Called under the
	// watcher's lock: it must not block, and does any work on the screen (its text) only
	// when a reader is on.
	Unsure func(paneID string, sc screen.Screen, hash uint64, shown time.Time)
	// ContextMoved, if set, is called with a pane's record before and after its context
	// changed (its agent's file or screen told another figure). Called under the
	// watcher's lock: it must not block.
	ContextMoved func(before, after wire.Pane)
	// PaneGone, if set, is called with the id of a pane the watcher drops (closed):
	// what was kept for it elsewhere can go. Called under the watcher's lock: it must not
	// block.
	PaneGone func(paneID string)
	// Processes lists the processes of a pane, its own first, for pack detection.
	Processes func(pid int) []packs.Process
	// Published, if set, is handed every snapshot once it is written (`paneherd follow`
	// waits on it). It must not block.
	Published func(wire.Snapshot)

	// stepMu makes frames and hook events take turns: both change panes, write the store
	// and publish. It is held across the store write and the push, never w.mu.
	stepMu sync.Mutex
	mu     sync.RWMutex // guards panes against readers outside the loop (Pane)
	panes  map[string]*pane
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
	tried    time.Time
	lastLine string
	// snapWritten is the snapshot as last written, checked at most every
	// snapshotCheckEvery (snapChecked). Guarded by stepMu.
	snapWritten paths.Written
	snapChecked time.Time
	// reshow is when the panes the line shows change with no state changing (an agent's
	// READY stops being news under @paneherd-show attention), and reshowPane the pane it
	// is: the line is rendered again then. Zero: never. Guarded by stepMu.
	reshow     time.Time
	reshowPane string
	// fleetReshow publishes again when a remote pane's READY stops being news. Under
	// stepMu.
	fleetReshow   *time.Timer
	fleetReshowAt time.Time // the moment it is armed for (zero: none)
	lastPrune     time.Time
	// pending is not written yet: its write is due (commitEvery after wrote, the last
	// try), or the store failed. flushLater writes it when no frame comes to. hold
	// bounds it: bounded is how many of its transitions it checked, dropped how many it
	// dropped while the store failed.
	pending    store.Batch
	bounded    int
	dropped    int
	wrote      time.Time
	flushLater *time.Timer
	failing    atomic.Pointer[StoreFailure] // nil while the store takes writes
	closed     bool                         // Close has written the last state
	looked     bool                         // a frame has been read: a pane new after it is new

	// done counts what publishing cost the disk and tmux (Work).
	done struct{ commits, snapshots, pushes atomic.Uint64 }

	// remote and hosts are the fleet's (SetFleet): other machines' panes and how each
	// is reached. Guarded by stepMu.
	remote []wire.Pane
	hosts  []wire.Host

	render    live.Value[statusline.Options] // its version counts SetRender calls
	pushedGen uint64                         // render's version when the line was last pushed: another means push it again
}

// SetRender changes how the status line is rendered (the user's options); the next frame
// uses it, and pushes its line even if unchanged. Safe to call from another goroutine.
func (w *Watcher) SetRender(o statusline.Options) { w.render.Store(o) }

// summaryEvery is how often a change of summaries alone is published: each publish
// rewrites the snapshot, and a busy agent's summary changes several times a second.
const summaryEvery = time.Second

// History of panes that are gone is kept this long, then pruned (checked hourly).
const (
	keepGoneHistory = 7 * 24 * time.Hour
	pruneEvery      = time.Hour
)

// Restore loads the panes a previous daemon left in the store, so their history and
// states carry on; panes that vanished meanwhile go OFFLINE at the first frame. A store
// opened read-only fails from the start: the line says so even while nothing changes.
func (w *Watcher) Restore() error {
	recs, err := w.Store.Panes()
	if err != nil {
		return fmt.Errorf("watcher: restore: %w", err)
	}
	if why := w.Store.ReadOnly(); why != "" {
		w.failing.Store(&StoreFailure{Err: errors.New(why), Since: time.Now()})
	}
	panes := make(map[string]*pane, len(recs))
	for _, r := range recs {
		// The rule that set the state stays the pane's until its state changes.
		t := tracker.Resume(state.State(r.State), r.Since, r.Rule, r.Summary)
		panes[r.ID] = &pane{rec: r, tracker: t}
		if r.Context.Source != wire.ContextScreen {
			// A file's word holds until the agent's next hook has its file read
			// again; the screen's is read anew at the first look.
			panes[r.ID].told = r.Context
		}
	}
	// A scrape of the metrics (States) may come already.
	w.mu.Lock()
	w.panes = panes
	w.mu.Unlock()
	return nil
}

// Run steps through frames until the context ends (nil) or the tmux server goes away
// (nil: the daemon's job is done). Other observer errors are logged and retried.
func (w *Watcher) Run(ctx context.Context, obs observe.Observer) error {
	lastErr := ""
	aware, _ := obs.(observe.WorkAware)
	for {
		if aware != nil {
			aware.SetWorking(w.working())
		}
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
func (w *Watcher) due() observe.Due {
	w.stepMu.Lock() // a hook event may be changing a tracker
	defer w.stepMu.Unlock()
	d := observe.Due{}
	for id, p := range w.panes {
		if at := p.tracker.Due(); !at.IsZero() {
			d[id] = at
		}
		if at := p.startingEnds(); !at.IsZero() {
			d.Add(id, at) // its BUSY starting ends then
		}
	}
	if w.panes[w.summaryPending] != nil {
		d.Add(w.summaryPending, w.summaryDue())
	}
	if w.panes[w.reshowPane] != nil {
		d.Add(w.reshowPane, w.reshow)
	}
	return d
}

// working is the set of panes whose agent a pack rule or its hook shows at work
// (Tracker.AtWork). Not a program in a shell (the shell pack's panes: vim, a build, tail
// -f): it may print seldom, and a pause and its continue cost more than relaying a single
// redraw (internal/observe/controlmode_panes.go).
func (w *Watcher) working() map[string]bool {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	set := map[string]bool{}
	for id, p := range w.panes {
		if p.pack != nil && p.pack.Name != FallbackPack && p.tracker.AtWork() {
			set[id] = true
		}
	}
	return set
}

// summaryDue is when a pending summary may be published.
func (w *Watcher) summaryDue() time.Time { return w.tried.Add(summaryEvery) }

// Work is how many store commits, snapshot writes and status pushes the watcher has made;
// safe from any goroutine.
func (w *Watcher) Work() (commits, snapshots, pushes uint64) {
	return w.done.commits.Load(), w.done.snapshots.Load(), w.done.pushes.Load()
}

// Pane returns a pane's record and the pack reading it; safe from any goroutine.
func (w *Watcher) Pane(id string) (wire.Pane, *packs.Pack, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	p, ok := w.panes[id]
	if !ok {
		return wire.Pane{}, nil, false
	}
	return p.rec, p.pack, true
}

// States counts the panes watched now in each state; safe from any goroutine.
func (w *Watcher) States() map[string]int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	counts := make(map[string]int, len(state.All))
	for _, p := range w.panes {
		counts[p.rec.State]++
	}
	return counts
}

// Step applies one frame: the panes' states change under the lock, then the store and
// the snapshot are written, and the status line pushed, with the lock released, so a
// slow disk or a hung tmux never holds up the readers of Pane (send, approve).
func (w *Watcher) Step(f observe.Frame) error {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	render, gen := w.render.LoadVersion()
	batch, recs := w.advance(f, gen != w.pushedGen || w.snapshotLost(f.At))
	return w.commit(f.At, batch, recs, render, gen)
}

// snapshotCheckEvery is how often a frame checks that the snapshot is still the one
// written (one stat): a quiet server's frames come every 5 s (the control observer's
// reconcile), a busy one's many times a second.
const snapshotCheckEvery = time.Second

// snapshotLost reports whether someone removed, garbled or replaced the snapshot since
// it was written (status would say paneherd is off): then it is written again, though
// nothing changed. Under stepMu.
func (w *Watcher) snapshotLost(at time.Time) bool {
	if at.Sub(w.snapChecked) < snapshotCheckEvery {
		return false
	}
	w.snapChecked = at
	return w.snapWritten.Changed(w.Snapshot)
}

// advance applies the frame to the panes under the lock. It returns the changes to
// store, and the records to publish when the snapshot is due, or republish asks (nil
// when neither).
func (w *Watcher) advance(f observe.Frame, republish bool) (store.Batch, []wire.Pane) {
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
		if info.OptRemote != "" {
			continue // a window onto a host's pane: the host's daemon reads it, and the fleet shows it
		}
		seen[info.ID] = true
		if w.update(info, f, &batch) {
			p := w.panes[info.ID]
			p.rec.LastSeen = f.At
			put(&batch, p.rec)
		}
	}
	for id, p := range w.panes {
		if !seen[id] {
			tr, moved := p.tracker.Dead(f.At, tracker.RuleGone, "pane closed")
			w.record(p, tr, moved, &batch)
			batch.Delete = append(batch.Delete, id)
			delete(w.panes, id)
			w.stale = true
			if w.PaneGone != nil {
				w.PaneGone(id)
			}
		}
	}
	w.looked = true
	return batch, w.toPublish(f.At, republish)
}

// toPublish is every pane's record when the snapshot is due at, else nil. Under w.mu.
func (w *Watcher) toPublish(at time.Time, republish bool) []wire.Pane {
	summaries := w.summaryPending != "" && !at.Before(w.summaryDue())
	reshow := !w.reshow.IsZero() && !at.Before(w.reshow)
	if !w.stale && !republish && !summaries && !reshow {
		return nil
	}
	return w.recordsLocked()
}

// records is every pane's record, to publish.
func (w *Watcher) records() []wire.Pane {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.recordsLocked()
}

func (w *Watcher) recordsLocked() []wire.Pane {
	recs := make([]wire.Pane, 0, len(w.panes))
	for _, p := range w.panes {
		recs = append(recs, p.rec)
	}
	return recs
}

// publish writes the snapshot of recs and pushes its status line when that changed.
// A push that fails is tried again at the next frame.
func (w *Watcher) publish(at time.Time, recs []wire.Pane, render statusline.Options, gen uint64) error {
	w.tried = at
	snap := wire.Snapshot{PID: w.PID, Updated: at, Panes: statusline.Sorted(recs),
		Remote: w.remote, Hosts: w.hosts}
	snap.Line = statusline.Render(snap, render, at)
	if w.failing.Load() != nil {
		snap.Line = strings.TrimSuffix(statusline.StoreFailed+" "+snap.Line, " ")
	}
	w.reshowPane, w.reshow = render.NextChange(snap.Panes, at)
	_, remoteReshow := render.NextChange(snap.Remote, at)
	w.reshowFleet(remoteReshow, at)
	pushed := true
	if w.Push != nil && (snap.Line != w.lastLine || gen != w.pushedGen) {
		pushed = w.Push(snap.Line) == nil
		w.done.pushes.Add(1)
	}
	if pushed {
		w.lastLine, w.pushedGen = snap.Line, gen
	}
	w.done.snapshots.Add(1)
	if err := wire.WriteSnapshot(w.Snapshot, snap); err != nil {
		return err
	}
	w.snapWritten.Note(w.Snapshot)
	w.stale, w.summaryPending = !pushed, ""
	if w.Published != nil {
		w.Published(snap)
	}
	return nil
}
