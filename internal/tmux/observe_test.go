package tmux_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestObserveListsAndCapturesInOneCall(t *testing.T) {
	h := tmuxtest.New(t)
	a := h.NewSession("s", "printf 'screen-A'; exec sleep 1000")
	b := h.NewWindow("s", "b", "printf 'screen-B'; exec sleep 1000")
	c := h.NewWindow("s", "c", "printf 'screen-C'; exec sleep 1000")
	for pane, text := range map[string]string{a: "screen-A", b: "screen-B", c: "screen-C"} {
		tmuxtest.WaitFor(t, 15*time.Second, func() bool {
			return strings.Contains(h.Run("capture-pane", "-p", "-t", pane), text)
		})
	}
	h.Run("kill-pane", "-t", b)

	look, err := h.Server.Observe(context.Background(), []string{a, b, c})
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	panes, screens := look.Panes, look.Screens
	pid := h.Run("display-message", "-p", "#{pid}")
	if !strings.HasPrefix(look.Server, pid+":") || len(look.Server) < len(pid)+2 {
		t.Errorf("server id %q does not start with the server pid %s", look.Server, pid)
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

	look, err = h.Server.Observe(context.Background(), nil)
	if err != nil || len(look.Panes) != 2 || len(look.Screens) != 0 {
		t.Errorf("Observe(nil) = %d panes, %d screens, %v", len(look.Panes), len(look.Screens), err)
	}
}

func TestObserveServerWithoutSessions(t *testing.T) {
	h := tmuxtest.New(t) // exit-empty off: the server outlives its sessions
	look, err := h.Server.Observe(context.Background(), nil)
	if err != nil || len(look.Panes) != 0 {
		t.Fatalf("Observe on a server with no sessions = %+v, %v; want no panes, no error", look, err)
	}
}
