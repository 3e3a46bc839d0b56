package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/packs"
)

// A pack's clock reaches the tracker: a worker whose status line's clock (an ignored
// footer) ticks is not STALLED while the rest of its screen stands still, and is once the
// clock stops.
func TestAdvancingClockKeepsAWorkerFromStalling(t *testing.T) {
	dir := t.TempDir()
	pack := `
stall = "1m"
ignore = '^status: '
clock = '^status: .* (\d\d:\d\d)$'
[detect]
commands = ["worker"]
[[rules]]
name = "working"
state = "BUSY"
match = '^working'
`
	if err := os.WriteFile(filepath.Join(dir, "worker.toml"), []byte(pack), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t)
	w.Packs = packs.Load(dir)
	if len(w.Packs.Problems) > 0 {
		t.Fatal(w.Packs.Problems)
	}
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: 100, Command: "worker"}
	look := func(sec int, clock string) string {
		t.Helper()
		sc := fmt.Sprintf("working on it\n\nstatus: main %s", clock)
		if err := w.Step(observe.Frame{At: t0.Add(time.Duration(sec) * time.Second), Panes: []tmux.Pane{pane},
			Screens: map[string]string{"%1": sc}}); err != nil {
			t.Fatal(err)
		}
		rec, _, _ := w.Pane("%1")
		return rec.State
	}
	for sec := 0; sec <= 300; sec += 30 {
		if st := look(sec, fmt.Sprintf("10:%02d", sec/60)); st != "BUSY" {
			t.Fatalf("%ds, the clock ticking: %s", sec, st)
		}
	}
	if st := look(359, "10:05"); st != "BUSY" {
		t.Fatalf("59 s after the clock's last tick: %s", st)
	}
	if st := look(360, "10:05"); st != "STALLED" {
		t.Fatalf("a stall time after the clock's last tick: %s", st)
	}
	if st := look(361, "10:06"); st != "BUSY" {
		t.Fatalf("the clock moved again: %s", st)
	}
}
