package watcher

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

// failingStore is a store whose writes fail while it is broken (a full disk), then work
// again.
type failingStore struct {
	Store
	broken atomic.Bool
}

func (s *failingStore) Apply(b store.Batch) error {
	if s.broken.Load() {
		return errors.New("write state.db: no space left on device")
	}
	return s.Store.Apply(b)
}

// brokenStore gives w a store that fails until it is mended, the real one under it, and
// the lines w pushes.
func brokenStore(t *testing.T, w *Watcher) (*failingStore, *store.Store, func() []string) {
	real := db(w)
	st := &failingStore{Store: real}
	st.broken.Store(true)
	w.Store = st
	var mu sync.Mutex
	var pushed []string
	w.Push = func(line string) error {
		mu.Lock()
		defer mu.Unlock()
		pushed = append(pushed, line)
		return nil
	}
	return st, real, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(pushed)
	}
}

// TestAFailingStoreHoldsUpNothing: while the store refuses writes, every change is still
// published (snapshot and line) with the line saying the store failed; what could not be
// written waits, and goes in one write once the store takes writes again, when the marker
// goes too.
func TestAFailingStoreHoldsUpNothing(t *testing.T) {
	w := newWatcher(t)
	st, real, pushed := brokenStore(t, w)
	t0 := time.Now()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	step := stepper(t, w, pane)
	dialog := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	shown := func(wantState, wantLine string) {
		t.Helper()
		snap, err := wire.ReadSnapshot(w.Snapshot)
		if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != wantState || snap.Line != wantLine {
			t.Fatalf("snapshot = %+v, %v; want %%1 %s, line %q", snap, err, wantState, wantLine)
		}
		if p := pushed(); len(p) == 0 || p[len(p)-1] != wantLine {
			t.Fatalf("pushed %q, want the last %q", p, wantLine)
		}
	}

	step(t0, dialog)
	shown("NEEDS_CONFIRMATION", statusline.StoreFailed+" [api: NEEDS_CONFIRMATION]")
	f := w.StoreFailure()
	if f == nil || !strings.Contains(f.Err.Error(), "no space left") || !f.Since.Equal(t0) || f.Waiting != 1 {
		t.Fatalf("StoreFailure() = %+v, want the write's error since %v, 1 transition waiting", f, t0)
	}
	step(t0.Add(100*time.Millisecond), "$ \n")
	shown("BUSY", statusline.StoreFailed+" [api: BUSY]")
	step(t0.Add(200*time.Millisecond), dialog)
	shown("NEEDS_CONFIRMATION", statusline.StoreFailed+" [api: NEEDS_CONFIRMATION]")
	if panes, _ := real.Panes(); len(panes) != 0 {
		t.Fatalf("stored panes while the store fails = %+v", panes)
	}

	st.broken.Store(false)
	step(t0.Add(commitEvery+300*time.Millisecond), dialog)
	shown("NEEDS_CONFIRMATION", "[api: NEEDS_CONFIRMATION]")
	if f := w.StoreFailure(); f != nil {
		t.Errorf("StoreFailure() = %+v after a write worked", f)
	}
	panes, _ := real.Panes()
	if len(panes) != 1 || panes[0].State != "NEEDS_CONFIRMATION" {
		t.Errorf("stored panes after the store works again = %+v", panes)
	}
	if hist, _ := real.Transitions("%1", 10); len(hist) != 3 {
		t.Errorf("stored history after the store works again = %+v, want the 3 transitions", hist)
	}
}

// TestAFailingStoreIsTriedAgainWithNoFrame: on a quiet server (no frame comes) what waits
// for a failing store is tried again every commitEvery, a history question's Flush
// included, and once it is written the marker leaves the line.
func TestAFailingStoreIsTriedAgainWithNoFrame(t *testing.T) {
	w := newWatcher(t)
	st, real, pushed := brokenStore(t, w)
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	stepper(t, w, pane)(time.Now(), readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt"))
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Flush with a failing store = %v, want its error", err)
	}
	commits, _, _ := w.Work()
	waitUntil(t, "a failing store is tried again", func() bool {
		now, _, _ := w.Work()
		return now >= commits+2
	})
	st.broken.Store(false)
	waitUntil(t, "the store works again: the transition written, the marker gone", func() bool {
		hist, _ := real.Transitions("%1", 10)
		p := pushed()
		return len(hist) == 1 && p[len(p)-1] == "[api: NEEDS_CONFIRMATION]"
	})
}

// TestAFailingStoreKeepsANewPaneOfAReusedID: while the store fails, a pane closes (its
// delete waits) and a new server's pane takes its id: once written, the store holds the
// new pane, not the delete of the old one.
func TestAFailingStoreKeepsANewPaneOfAReusedID(t *testing.T) {
	w := newWatcher(t)
	st, real, _ := brokenStore(t, w)
	t0 := time.Now()
	dialog := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	old := tmux.Pane{ID: "%0", Session: "s", Window: "old", WindowPanes: 1, PID: 7, Command: "codex"}
	other := tmux.Pane{ID: "%5", Session: "s", Window: "other", WindowPanes: 1, PID: 8, Command: "bash"}
	fresh := tmux.Pane{ID: "%0", Session: "t", Window: "new", WindowPanes: 1, PID: 9, Command: "codex"}
	for i, f := range []observe.Frame{
		{Server: "100:1", Panes: []tmux.Pane{old, other}, Screens: map[string]string{"%0": dialog, "%5": "$ \n"}},
		{Server: "100:1", Panes: []tmux.Pane{other}}, // %0 closed
		{Server: "200:2", Panes: []tmux.Pane{fresh}, Screens: map[string]string{"%0": dialog}},
	} {
		f.At = t0.Add(time.Duration(i) * 100 * time.Millisecond)
		if err := w.Step(f); err != nil {
			t.Fatal(err)
		}
	}
	st.broken.Store(false)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	panes, _ := real.Panes()
	if len(panes) != 1 || panes[0].ID != "%0" || panes[0].Window != "new" {
		t.Errorf("stored panes = %+v, want the new server's %%0 only", panes)
	}
}

// waitUntil polls cond for up to 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestChangesReachTheStoreWithinCommitEvery: the first change is written at once, those
// that follow within commitEvery wait (published at once all the same) and go out in
// one write: at the next frame past commitEvery, or by themselves once it has passed, or
// when Flush asks (a history question).
func TestChangesReachTheStoreWithinCommitEvery(t *testing.T) {
	w := newWatcher(t)
	real := db(w)
	t0 := time.Now()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	dialog := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	step := func(at time.Time, screen string) {
		t.Helper()
		if err := w.Step(observe.Frame{At: at, Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": screen}}); err != nil {
			t.Fatal(err)
		}
	}
	stored := func() int {
		hist, err := real.Transitions("%1", 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(hist)
	}
	step(t0, dialog)
	if n := stored(); n != 1 {
		t.Fatalf("the first change: %d transitions stored, want 1 at once", n)
	}
	step(t0.Add(100*time.Millisecond), "$ \n")
	step(t0.Add(200*time.Millisecond), dialog)
	if n := stored(); n != 1 {
		t.Fatalf("changes within %v of a write: %d transitions stored, want them waiting", commitEvery, n)
	}
	if st := w.States()["NEEDS_CONFIRMATION"]; st != 1 {
		t.Errorf("a change waiting for the store is not shown: %v", w.States())
	}
	commits, _, _ := w.Work()
	deadline := time.Now().Add(10 * time.Second)
	for stored() != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the waiting changes were never written: %d stored", stored())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after, _, _ := w.Work(); after != commits+1 {
		t.Errorf("the waiting changes took %d writes, want 1", after-commits)
	}

	step(t0.Add(1100*time.Millisecond), "$ \n")
	step(t0.Add(1200*time.Millisecond), dialog)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := stored(); n != 5 {
		t.Errorf("after Flush: %d transitions stored, want 5", n)
	}
}

// TestAFailingStoreKeepsEachPanesNewestHistory: a store that fails for long holds no more
// in memory than it would keep: each pane's newest HistoryLimit transitions wait, the older
// are dropped and counted, and the newest are what is written once the store works again.
func TestAFailingStoreKeepsEachPanesNewestHistory(t *testing.T) {
	const limit = 3
	w := newWatcher(t)
	limited, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{HistoryLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { limited.Close() })
	w.Store = limited
	st, real, _ := brokenStore(t, w)
	dialog := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	api := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	web := tmux.Pane{ID: "%2", Session: "s", Window: "web", WindowPanes: 1, PID: 8, Command: "codex"}
	screens := []string{dialog, "$ \n"}
	// api changes 7 times, web 2 times: api keeps its newest 3, web all of its own.
	for i := range 7 {
		f := observe.Frame{At: t0.Add(time.Duration(i) * 100 * time.Millisecond), Panes: []tmux.Pane{api, web},
			Screens: map[string]string{"%1": screens[i%2], "%2": screens[min(i, 1)]}}
		if err := w.Step(f); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.StoreFailure(); f == nil || f.Waiting != limit+2 || f.Dropped != 4 {
		t.Fatalf("StoreFailure() = %+v, want %d transitions waiting (api's newest %d, web's 2) and 4 dropped", f, limit+2, limit)
	}
	st.broken.Store(false)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if f := w.StoreFailure(); f != nil {
		t.Errorf("StoreFailure() = %+v after a write worked", f)
	}
	hist, err := real.Transitions("%1", 10)
	if err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	for _, tr := range hist {
		times = append(times, tr.At)
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	want := []time.Time{t0.Add(400 * time.Millisecond), t0.Add(500 * time.Millisecond), t0.Add(600 * time.Millisecond)}
	if !slices.EqualFunc(times, want, time.Time.Equal) {
		t.Errorf("api's stored transitions at %v, want its newest %d: %v", times, limit, want)
	}
	if hist, _ := real.Transitions("%2", 10); len(hist) != 2 {
		t.Errorf("web's stored transitions = %+v, want its 2", hist)
	}
}

// readOnlyStore is a store opened read-only (an immutable state.db): every write fails,
// and no write can ever work in this process.
type readOnlyStore struct {
	Store
	applies atomic.Int32
}

func (s *readOnlyStore) ReadOnly() string {
	return "opened read-only: open state.db: operation not permitted"
}

func (s *readOnlyStore) Apply(store.Batch) error {
	s.applies.Add(1)
	return errors.New("store: apply: database is in read-only mode")
}

// TestAReadOnlyStoreKeepsNothingWaiting: a store opened read-only can never be written by
// this daemon, so nothing is kept for it (memory that would only grow) nor tried; every
// change is still published, the line saying the store fails.
func TestAReadOnlyStoreKeepsNothingWaiting(t *testing.T) {
	w := newWatcher(t)
	st := &readOnlyStore{Store: w.Store}
	w.Store = st
	if err := w.Restore(); err != nil {
		t.Fatal(err)
	}
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	step := stepper(t, w, pane)
	dialog := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	for i, screen := range []string{dialog, "$ \n", dialog, "$ \n", dialog} {
		step(t0.Add(time.Duration(i)*commitEvery), screen)
	}
	snap, err := wire.ReadSnapshot(w.Snapshot)
	if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != "NEEDS_CONFIRMATION" ||
		snap.Line != statusline.StoreFailed+" [api: NEEDS_CONFIRMATION]" {
		t.Fatalf("snapshot = %+v, %v; want %%1 NEEDS_CONFIRMATION, the line marked", snap, err)
	}
	if f := w.StoreFailure(); f == nil || f.Waiting != 0 {
		t.Errorf("StoreFailure() = %+v, want the store failing with nothing waiting", f)
	}
	w.stepMu.Lock()
	pending, retry := w.pending, w.flushLater
	w.stepMu.Unlock()
	if !pending.Empty() || retry != nil {
		t.Errorf("pending = %+v, retry armed %v; want nothing kept nor tried for a read-only store", pending, retry != nil)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Close = %v, want the store's refusal", err)
	}
	if n := st.applies.Load(); n != 0 {
		t.Errorf("a read-only store was written %d times", n)
	}
}
