package observe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// countingTmux puts a tmux on PATH that records each invocation, then runs the real one.
func countingTmux(t *testing.T) (count func() int) {
	t.Helper()
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("no tmux")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho x >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "x\n")
	}
}

func TestPollerUsesOneTmuxCallPerTick(t *testing.T) {
	calls := countingTmux(t)
	h := tmuxtest.New(t)
	first := h.NewSession("s", "printf one; exec sleep 1000")
	for i := 0; i < 5; i++ {
		h.NewWindow("s", "w", "printf more; exec sleep 1000")
	}
	p := NewPoller(h.Server, time.Hour)
	ctx := context.Background()
	if _, err := p.look(ctx); err != nil { // first look: new panes cost one more call
		t.Fatal(err)
	}
	before := calls()
	f, err := p.look(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := calls() - before; got != 1 {
		t.Errorf("a look at 6 panes took %d tmux invocations, want 1", got)
	}
	if len(f.Panes) != 6 || len(f.Screens) != 6 || !strings.Contains(f.Screens[first], "one") {
		t.Errorf("look: %d panes, %d screens", len(f.Panes), len(f.Screens))
	}

	h.Run("kill-pane", "-t", first) // vanished since the last look: the tick survives
	f, err = p.look(ctx)
	if err != nil || len(f.Panes) != 5 || len(f.Screens) != 5 {
		t.Errorf("after a pane vanished: %d panes, %d screens, %v", len(f.Panes), len(f.Screens), err)
	}
}
