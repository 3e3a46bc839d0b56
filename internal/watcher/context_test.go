package watcher

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/store"
)

func readScreen(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "packs", "testdata", "screens", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// published is pane %1's context in the snapshot and in the store.
func published(t *testing.T, w *Watcher) (snap, stored wire.Context) {
	t.Helper()
	s, err := wire.ReadSnapshot(w.Snapshot)
	if err != nil || len(s.Panes) != 1 {
		t.Fatalf("snapshot %+v, %v", s.Panes, err)
	}
	if err := w.Flush(); err != nil { // writes what waits for the store
		t.Fatal(err)
	}
	recs, err := db(w).Panes()
	if err != nil || len(recs) != 1 {
		t.Fatalf("store %+v, %v", recs, err)
	}
	return s.Panes[0].Context, recs[0].Context
}

// A Claude pane's context: the figure its footer shows, until its transcript tells
// more, which then holds whatever the screen shows; its agent exiting to the shell drops
// it. Each change is published, stored and told to ContextMoved.
func TestContextScreenThenFile(t *testing.T) {
	w := newWatcher(t)
	var moved []wire.Context
	w.ContextMoved = func(before, after wire.Pane) { moved = append(moved, after.Context) }
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "claude"}
	step := stepper(t, w, pane)
	footer := readScreen(t, "claude/ready-context-used.txt")
	plain := readFixture(t, "claude/06-READY-after-short-answer.txt")

	step(t0, footer)
	screen := wire.Context{Source: wire.ContextScreen, UsedPct: wire.PercentOf(98)}
	if snap, stored := published(t, w); snap != screen || stored != screen {
		t.Fatalf("footer: snapshot %+v, store %+v; want %+v", snap, stored, screen)
	}

	file := wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(96), Tokens: 960000, Window: 1_000_000, Model: "claude-opus-4-8[1m]"}
	if known, err := w.SetContext("%1", file, t0.Add(time.Second)); !known || err != nil {
		t.Fatalf("SetContext: %v, %v", known, err)
	}
	if snap, stored := published(t, w); snap != file || stored != file {
		t.Fatalf("transcript: snapshot %+v, store %+v; want %+v", snap, stored, file)
	}
	step(t0.Add(2*time.Second), plain)
	if snap, _ := published(t, w); snap != file {
		t.Fatalf("the screen without its figure: %+v, want the transcript's still", snap)
	}

	pane.Command = "bash"
	stepTo := stepper(t, w, pane)
	stepTo(t0.Add(3*time.Second), "user@devbox:~$ ")
	if snap, stored := published(t, w); snap.Known() || stored.Known() {
		t.Fatalf("the agent exited: snapshot %+v, store %+v; want no context", snap, stored)
	}
	if len(moved) != 3 || moved[0] != screen || moved[1] != file || moved[2].Known() {
		t.Errorf("ContextMoved told %+v", moved)
	}
	if known, _ := w.SetContext("%9", file, t0); known {
		t.Error("SetContext of a pane the watcher does not have: known")
	}
}

// A file that tells tokens and no percent (its model's window not known, or overflowed)
// takes the percent its screen shows; the tokens stay the file's.
func TestContextFileWithoutPercentTakesTheScreens(t *testing.T) {
	w := newWatcher(t)
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "claude"}
	step := stepper(t, w, pane)
	step(t0, readScreen(t, "claude/ready-context-used.txt"))
	file := wire.Context{Source: wire.ContextTranscript, Tokens: 196000, Window: 0, Model: "claude-opus-4-8"}
	if known, err := w.SetContext("%1", file, t0.Add(time.Second)); !known || err != nil {
		t.Fatalf("SetContext: %v, %v", known, err)
	}
	want := file
	want.UsedPct = wire.PercentOf(98)
	if snap, stored := published(t, w); snap != want || stored != want {
		t.Fatalf("snapshot %+v, store %+v; want %+v", snap, stored, want)
	}
}

// A file's context a daemon stored holds when a new daemon restores the pane and finds
// the same agent there; a screen's is read anew.
func TestContextRestored(t *testing.T) {
	file := wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(40), Tokens: 80000, Window: 200_000, Model: "claude-opus-4-8"}
	for _, tc := range []struct {
		name string
		ctx  wire.Context
		want wire.Context
	}{
		{"transcript", file, file},
		{"screen", wire.Context{Source: wire.ContextScreen, UsedPct: wire.PercentOf(90)}, wire.Context{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWatcher(t)
			rec := wire.Pane{ID: "%1", Session: "s", Window: "api", Pack: "claude", PID: 7, State: "READY", Since: t0, Context: tc.ctx}
			if err := w.Store.Apply(store.Batch{Put: []wire.Pane{rec}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Restore(); err != nil {
				t.Fatal(err)
			}
			readyClaude(t, w)
			if snap, _ := published(t, w); snap != tc.want {
				t.Errorf("after the first looks: %+v, want %+v", snap, tc.want)
			}
		})
	}
}

// A pane closed is told to PaneGone (its agent's file is read no more).
func TestPaneGoneTold(t *testing.T) {
	w := newWatcher(t)
	var gone []string
	w.PaneGone = func(id string) { gone = append(gone, id) }
	readyClaude(t, w)
	if err := w.Step(observe.Frame{At: t0.Add(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if len(gone) != 1 || gone[0] != "%1" {
		t.Errorf("PaneGone told %v, want [%%1]", gone)
	}
}
