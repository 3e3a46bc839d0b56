package store

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// testPath returns a database path in a directory that does not exist yet,
// so every test also exercises Open creating it.
func testPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "state", "paneherd.db")
}

// mustOpen opens path and closes the store when the test ends.
func mustOpen(t *testing.T, path string, opts Options) *Store {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func openTemp(t *testing.T) *Store {
	t.Helper()
	return mustOpen(t, testPath(t), Options{})
}

func mustApply(t *testing.T, s *Store, b Batch) {
	t.Helper()
	if err := s.Apply(b); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

func paneIDs(t *testing.T, s *Store) []string {
	t.Helper()
	panes, err := s.Panes()
	if err != nil {
		t.Fatalf("Panes: %v", err)
	}
	ids := []string{}
	for _, p := range panes {
		ids = append(ids, p.ID)
	}
	return ids
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestPanesRoundTrip(t *testing.T) {
	s := openTemp(t)
	want := wire.Pane{
		ID: "%3", Session: "work", Window: "agents", WindowIndex: 2, PaneIndex: 1,
		Name: "claude", Pack: "claude", State: "NEEDS_CONFIRMATION", Rule: "confirm.dialog",
		Summary: "Do you want to proceed?", Since: t0, Command: "node", PID: 4242,
		CWD: "/home/u/src", LastSeen: t0.Add(time.Second),
	}
	mustApply(t, s, Batch{Put: []wire.Pane{want}})
	got, err := s.Panes()
	if err != nil {
		t.Fatalf("Panes: %v", err)
	}
	if !reflect.DeepEqual(got, []wire.Pane{want}) {
		t.Fatalf("Panes = %+v, want %+v", got, []wire.Pane{want})
	}

	want.State = "BUSY"
	mustApply(t, s, Batch{Put: []wire.Pane{want}})
	if got, _ := s.Panes(); len(got) != 1 || got[0].State != "BUSY" {
		t.Fatalf("after replacing: Panes = %+v, want one BUSY pane", got)
	}
}

func TestApplyDeletes(t *testing.T) {
	tests := []struct {
		name  string
		batch Batch
		want  []string
	}{
		{"delete one", Batch{Delete: []string{"%2"}}, []string{"%1", "%3"}},
		{"delete unknown is fine", Batch{Delete: []string{"%9"}}, []string{"%1", "%2", "%3"}},
		{"put and delete in one batch", Batch{Put: []wire.Pane{{ID: "%4"}}, Delete: []string{"%4", "%1"}}, []string{"%2", "%3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTemp(t)
			mustApply(t, s, Batch{Put: []wire.Pane{{ID: "%1"}, {ID: "%2"}, {ID: "%3"}}})
			mustApply(t, s, tt.batch)
			if got := paneIDs(t, s); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("panes = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestApplyRejectsEmptyPaneID(t *testing.T) {
	tests := []struct {
		name  string
		batch Batch
	}{
		{"put", Batch{Put: []wire.Pane{{ID: "%1"}, {ID: ""}}}},
		{"delete", Batch{Put: []wire.Pane{{ID: "%1"}}, Delete: []string{""}}},
		{"transition", Batch{Put: []wire.Pane{{ID: "%1"}}, Transitions: []wire.Transition{{To: "READY"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTemp(t)
			if err := s.Apply(tt.batch); !errors.Is(err, ErrNoPaneID) {
				t.Fatalf("Apply = %v, want ErrNoPaneID", err)
			}
			if got := paneIDs(t, s); len(got) != 0 {
				t.Fatalf("a rejected batch was partly written: panes = %v", got)
			}
		})
	}
}

func TestPanesSortNumerically(t *testing.T) {
	s := openTemp(t)
	var put []wire.Pane
	for _, id := range []string{"%10", "x", "%2", "%100", "%1", "%9"} {
		put = append(put, wire.Pane{ID: id})
	}
	mustApply(t, s, Batch{Put: put})
	want := []string{"%1", "%2", "%9", "%10", "%100", "x"}
	if got := paneIDs(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("panes = %v, want %v", got, want)
	}
}

func TestReopenKeepsPanes(t *testing.T) {
	path := testPath(t)
	s := mustOpen(t, path, Options{})
	mustApply(t, s, Batch{Put: []wire.Pane{{ID: "%1", State: "READY"}}})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = mustOpen(t, path, Options{})
	if s.Recovered() != "" {
		t.Fatalf("reopening a good file recovered: %s", s.Recovered())
	}
	if got := paneIDs(t, s); !reflect.DeepEqual(got, []string{"%1"}) {
		t.Fatalf("panes after reopen = %v, want [%%1]", got)
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	path := testPath(t)
	first := mustOpen(t, path, Options{})
	mustApply(t, first, Batch{Put: []wire.Pane{{ID: "%1"}}})

	const timeout = 200 * time.Millisecond
	start := time.Now()
	second, err := Open(path, Options{LockTimeout: timeout})
	elapsed := time.Since(start)
	if err == nil {
		_ = second.Close()
		t.Fatal("second Open succeeded while the first store is open")
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second Open = %v, want ErrLocked saying already running", err)
	}
	if elapsed > timeout+time.Second {
		t.Fatalf("second Open took %v with LockTimeout %v", elapsed, timeout)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("a locked file must be left alone; directory holds %d entries", len(entries))
	}

	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	third := mustOpen(t, path, Options{LockTimeout: timeout})
	if got := paneIDs(t, third); !reflect.DeepEqual(got, []string{"%1"}) {
		t.Fatalf("panes after the lock was released = %v, want [%%1]", got)
	}
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	path := testPath(t)
	mustOpen(t, path, Options{})
	for _, tt := range []struct {
		path string
		want os.FileMode
	}{
		{filepath.Dir(path), 0o700},
		{path, 0o600},
	} {
		info, err := os.Stat(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != tt.want {
			t.Errorf("mode of %s = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestOpenFailsWithoutMovingOnIOError(t *testing.T) {
	path := testPath(t)
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err == nil {
		_ = s.Close()
		t.Fatal("Open of a directory succeeded")
	}
	if errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open = %v, want an error naming %s", err, path)
	}
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		t.Fatalf("the directory at %s was moved or removed", path)
	}
}
