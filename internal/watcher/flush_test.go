package watcher

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/store"
)

// failingStore is a store whose next writes fail (a full disk), then work again.
type failingStore struct {
	Store
	failures int
}

func (s *failingStore) Apply(b store.Batch) error {
	if s.failures > 0 {
		s.failures--
		return errors.New("disk full")
	}
	return s.Store.Apply(b)
}

// TestFailedWriteWaitsForFlush: a frame whose write fails publishes nothing (the snapshot
// and the status line would show a state the store lacks) and keeps its batch; Flush, at
// shutdown, commits it.
func TestFailedWriteWaitsForFlush(t *testing.T) {
	w := newWatcher(t)
	real := db(w)
	w.Store = &failingStore{Store: real, failures: 1}
	pushed := 0
	w.Push = func(string) error { pushed++; return nil }
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	err := w.Step(observe.Frame{At: t0, Panes: []tmux.Pane{pane},
		Screens: map[string]string{"%1": readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")}})
	if err == nil {
		t.Fatal("Step succeeded although the store failed")
	}
	if _, err := os.Stat(w.Snapshot); !os.IsNotExist(err) || pushed != 0 {
		t.Errorf("a frame the store did not take was published: snapshot %v, %d pushes", err, pushed)
	}
	if panes, _ := real.Panes(); len(panes) != 0 {
		t.Fatalf("stored panes after a failed write = %+v", panes)
	}

	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	panes, _ := real.Panes()
	if len(panes) != 1 || panes[0].ID != "%1" || panes[0].State != "NEEDS_CONFIRMATION" {
		t.Errorf("after Flush the store holds %+v, want %%1 NEEDS_CONFIRMATION", panes)
	}
	if hist, _ := real.Transitions("%1", 10); len(hist) != 1 || hist[0].To != "NEEDS_CONFIRMATION" {
		t.Errorf("after Flush the pane's history is %+v", hist)
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
