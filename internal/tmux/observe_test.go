package tmux_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestObserveListsAndCapturesInOneCall(t *testing.T) {
	h := tmuxtest.New(t)
	a := h.NewSession("s", "printf 'screen-A'; exec sleep 1000")
	b := h.NewWindow("s", "b", "printf 'screen-B'; exec sleep 1000")
	c := h.NewWindow("s", "c", "printf 'screen-C'; exec sleep 1000")
	tmuxtest.WaitFor(t, 5e9, func() bool {
		out := h.Run("capture-pane", "-p", "-t", c)
		return strings.Contains(out, "screen-C")
	})
	h.Run("kill-pane", "-t", b)

	panes, screens, err := h.Server.Observe(context.Background(), []string{a, b, c})
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	if len(panes) != 2 {
		t.Errorf("listed %d panes, want 2 (b was killed): %+v", len(panes), panes)
	}
	if !strings.Contains(screens[a], "screen-A") || !strings.Contains(screens[c], "screen-C") {
		t.Errorf("screens = %q", screens)
	}
	if _, ok := screens[b]; ok {
		t.Errorf("the killed pane has a screen: %q", screens[b])
	}

	panes, screens, err = h.Server.Observe(context.Background(), nil)
	if err != nil || len(panes) != 2 || len(screens) != 0 {
		t.Errorf("Observe(nil) = %d panes, %d screens, %v", len(panes), len(screens), err)
	}
}
