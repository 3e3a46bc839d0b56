package watcher

import (
	"fmt"
	"slices"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

// commitEvery is how long a change may wait for the store: the durability rule. A
// state's change is in the snapshot and the pushed line at once (what people and agents
// read), and on disk (history, and the states a restarted daemon resumes) within
// commitEvery: a crash of the daemon or the machine loses at most that much history.
// A history question, a pane that closed and an orderly stop write what waits first.
// One write, with its fsync, per change is a large share of the daemon's CPU in a busy
// fleet (docs/performance.md, "Store writes"); most frames change one pane.
const commitEvery = time.Second

// StoreFailure is the store refusing writes (a full disk, a file made immutable or
// read-only): the watcher goes on publishing what it sees, and keeps what it could not
// write until a write works, tried every commitEvery: at most each pane's newest
// HistoryLimit transitions, and nothing for a store opened read-only (hold).
type StoreFailure struct {
	Err     error     // the last write's
	Since   time.Time // the first write that failed
	Waiting int       // transitions kept for the store meanwhile
	Dropped int       // transitions dropped meanwhile: a pane's oldest beyond HistoryLimit
}

// StoreFailure says whether the store refuses writes now (nil: it takes them); safe from
// any goroutine.
func (w *Watcher) StoreFailure() *StoreFailure { return w.failing.Load() }

// commit writes the batch to the store, now or within commitEvery, and, when recs is
// not nil, publishes them. A store that fails holds up nothing: the batch waits, and the
// line says so (statusline.StoreFailed) until a write works.
func (w *Watcher) commit(at time.Time, batch store.Batch, recs []wire.Pane, render statusline.Options, gen uint64) error {
	w.hold(batch)
	if w.writeDue(at) && w.write(at) && recs == nil {
		recs = w.records() // the store failed or works again: the line's marker says so
	}
	w.writeLater()
	w.countWaiting()
	if at.Sub(w.lastPrune) >= pruneEvery {
		w.lastPrune = at
		if err := w.Store.PruneHistory(at.Add(-keepGoneHistory)); err != nil {
			w.Log.Warn().Err(err).Msg("prune history")
		}
	}
	if recs == nil {
		return nil
	}
	return w.publish(at, recs, render, gen)
}

// hold keeps batch pending for the store, no more than the store would keep: a pane's
// newest HistoryLimit transitions (Apply drops the older ones; a store failing for hours
// would else hold every change in memory), and nothing for a store opened read-only,
// which this process can never write. Under stepMu.
func (w *Watcher) hold(batch store.Batch) {
	if w.Store.ReadOnly() != "" {
		w.pending, w.bounded = store.Batch{}, 0
		return
	}
	// Only transitions this batch added can take a pane past the limit: most frames add
	// none, and a long outage holds thousands.
	if len(batch.Transitions) > w.bounded {
		limit := w.Store.HistoryLimit()
		var dropped int
		batch.Transitions, dropped = newestPerPane(batch.Transitions, limit)
		if dropped > 0 && w.dropped == 0 {
			w.Log.Warn().Int("per_pane", limit).Msg("store: write failed for long: only each pane's newest changes wait, the older are dropped")
		}
		w.dropped += dropped
	}
	w.pending, w.bounded = batch, len(batch.Transitions)
}

// newestPerPane drops the oldest of each pane's transitions beyond limit, keeping the
// order of the rest, and says how many it dropped.
func newestPerPane(ts []wire.Transition, limit int) ([]wire.Transition, int) {
	if len(ts) <= limit {
		return ts, 0 // no pane can have more
	}
	excess := map[string]int{}
	for _, t := range ts {
		excess[t.PaneID]++
	}
	for id, n := range excess {
		excess[id] = n - limit
	}
	before := len(ts)
	ts = slices.DeleteFunc(ts, func(t wire.Transition) bool {
		if excess[t.PaneID] > 0 {
			excess[t.PaneID]--
			return true
		}
		return false
	})
	return ts, before - len(ts)
}

// writeDue: what is pending goes to the store now. A delete goes at once while the store
// works: Apply puts before it deletes, so a pane id used again (a new server) must not
// meet its old delete in one write (put cancels such a delete in a batch that waits for
// a failing store). Else one write per commitEvery, which paces a failing store's tries.
func (w *Watcher) writeDue(at time.Time) bool {
	return (len(w.pending.Delete) > 0 && w.failing.Load() == nil) || at.Sub(w.wrote) >= commitEvery
}

// write writes what is pending. What fails stays pending, and the store is failing until
// a write works; write reports whether that changed. Under stepMu.
func (w *Watcher) write(at time.Time) (changed bool) {
	if w.flushLater != nil {
		w.flushLater.Stop()
		w.flushLater = nil
	}
	if w.pending.Empty() {
		return false
	}
	w.done.commits.Add(1)
	w.wrote = at
	was := w.failing.Load()
	if err := w.Store.Apply(w.pending); err != nil {
		now := &StoreFailure{Err: err, Since: at, Waiting: len(w.pending.Transitions), Dropped: w.dropped}
		if was != nil {
			now.Since = was.Since
		} else {
			w.Log.Error().Err(err).Msg("store: write failed; states are still published, their changes wait until a write works")
		}
		w.failing.Store(now)
		return was == nil
	}
	if was != nil {
		w.Log.Info().Int("transitions", len(w.pending.Transitions)).Int("dropped", w.dropped).
			Dur("failed_for", at.Sub(was.Since)).Msg("store: writes work again; what waited is written")
		w.failing.Store(nil)
	}
	w.pending, w.bounded, w.dropped = store.Batch{}, 0, 0
	return was != nil
}

// countWaiting keeps a failing store's Waiting and Dropped up with what the frames add,
// for doctor.
func (w *Watcher) countWaiting() {
	if f := w.failing.Load(); f != nil && (f.Waiting != len(w.pending.Transitions) || f.Dropped != w.dropped) {
		now := *f
		now.Waiting, now.Dropped = len(w.pending.Transitions), w.dropped
		w.failing.Store(&now)
	}
}

// writeLater arms the timer that writes what is pending when no frame comes to: commitEvery
// on, so a failing store is tried again on a quiet server too. Under stepMu.
func (w *Watcher) writeLater() {
	if w.pending.Empty() || w.flushLater != nil || w.closed {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(commitEvery, func() {
		w.stepMu.Lock()
		defer w.stepMu.Unlock()
		if w.flushLater != t {
			return // a write came first, and stopped it too late: this one is done
		}
		w.flushLater = nil
		w.writeAndShow(time.Now())
		w.writeLater()
	})
	w.flushLater = t
}

// writeAndShow writes what is pending, and publishes every pane when the store failed or
// works again, so the line's marker comes and goes with it. Under stepMu.
func (w *Watcher) writeAndShow(at time.Time) {
	if !w.write(at) {
		return
	}
	render, gen := w.render.LoadVersion()
	if err := w.publish(at, w.records(), render, gen); err != nil {
		w.Log.Warn().Err(err).Msg("publish")
	}
}

// Flush writes what is pending (commitEvery, or a failing store's) before a history
// question is answered. A store that fails is tried again later, as after any write.
func (w *Watcher) Flush() error {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	w.writeAndShow(time.Now())
	w.writeLater()
	return w.flushed()
}

// Close writes what is pending: the daemon's last state before it closes the store.
// Nothing touches the store after it: no retry is armed.
func (w *Watcher) Close() error {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	w.closed = true
	w.writeAndShow(time.Now())
	w.reshowFleet(time.Time{}, time.Time{})
	return w.flushed()
}

func (w *Watcher) flushed() error {
	if f := w.failing.Load(); f != nil {
		return fmt.Errorf("watcher: flush: %w", f.Err)
	}
	return nil
}

// put adds a pane's record to b, in place of one b holds already (a batch that waits for
// a failing store gathers frames, and only a pane's last record counts), and cancels b's
// delete of that id: that pane went, and the id is another's now (a new server).
func put(b *store.Batch, rec wire.Pane) {
	b.Delete = slices.DeleteFunc(b.Delete, func(id string) bool { return id == rec.ID })
	for i := range b.Put {
		if b.Put[i].ID == rec.ID {
			b.Put[i] = rec
			return
		}
	}
	b.Put = append(b.Put, rec)
}

// SetFleet takes the fleet's view (other machines' panes, each with its Host, and how
// each host is reached) and publishes it with this server's panes at once, once the
// first frame has been published (before, the panes are the store's, not looked at yet).
// It waits for the snapshot and the push like a frame does: call it off the fleet's
// goroutines. Safe from any goroutine.
func (w *Watcher) SetFleet(hosts []wire.Host, remote []wire.Pane) {
	w.stepMu.Lock()
	defer w.stepMu.Unlock()
	w.hosts, w.remote = hosts, remote
	w.republish()
}

// republish publishes the panes as they are, once the first frame has been. Under stepMu.
func (w *Watcher) republish() {
	if w.closed || w.tried.IsZero() {
		return
	}
	render, gen := w.render.LoadVersion()
	if err := w.publish(time.Now(), w.records(), render, gen); err != nil {
		w.Log.Warn().Err(err).Msg("publish")
	}
}

// reshowFleet has the line published again when a remote pane's READY stops being news
// (@paneherd-show attention), next being that moment and at the line's: no look at this
// server's panes, which due schedules, is due for it. Under stepMu.
// A publish that finds the same moment leaves the timer armed: most publishes are this
// server's frames, and they must not cost a timer each.
func (w *Watcher) reshowFleet(next, at time.Time) {
	if next.Equal(w.fleetReshowAt) {
		return
	}
	if w.fleetReshow != nil {
		w.fleetReshow.Stop()
	}
	w.fleetReshowAt = next
	if next.IsZero() {
		return
	}
	w.fleetReshow = time.AfterFunc(next.Sub(at), func() {
		w.stepMu.Lock()
		defer w.stepMu.Unlock()
		w.republish()
	})
}
