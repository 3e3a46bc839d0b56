package watcher

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// nextWithin calls Next until a frame satisfies ok, failing after the deadline.
func nextWithin(t *testing.T, o *ControlObserver, d time.Duration, ok func(Frame) bool) Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		f, err := o.Next(ctx, time.Time{})
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if ok(f) {
			return f
		}
	}
}

func TestControlObserverSeesOutputAtOnce(t *testing.T) {
	h := tmuxtest.New(t)
	a := h.NewSession("one", "exec cat")
	b := h.NewSession("two", "exec cat")
	o, err := StartControl(h.Server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.Close)
	start := time.Now()
	first := nextWithin(t, o, 5*time.Second, func(f Frame) bool { return true })
	if len(first.Panes) != 2 || len(first.Screens) != 2 || first.Server == "" {
		t.Fatalf("first frame: %d panes, %d screens, server %q", len(first.Panes), len(first.Screens), first.Server)
	}
	// Let the full look that follows new output clients pass: after it, the next full
	// look is a reconcile (5 s) away, so a frame within 2 s can only come from the output.
	nextWithin(t, o, 5*time.Second, func(f Frame) bool { return time.Since(start) > settleAttach })

	for _, pane := range []string{a, b} {
		h.Run("send-keys", "-t", pane, "-l", "hello from "+pane)
		nextWithin(t, o, 2*time.Second, func(f Frame) bool { return strings.Contains(f.Screens[pane], "hello from "+pane) })
	}

	c := h.NewWindow("two", "new", "exec cat")
	nextWithin(t, o, 2*time.Second, func(f Frame) bool {
		for _, p := range f.Panes {
			if p.ID == c {
				return true
			}
		}
		return false
	})
}
