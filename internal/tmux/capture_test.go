package tmux_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// startPanes opens n panes, pane i printing "hello <i>", and waits until
// every one shows its line.
func startPanes(tb testing.TB, h *tmuxtest.Handle, n int) []string {
	tb.Helper()
	ids := []string{h.NewSession("cap", "echo hello 0; exec sleep 300")}
	for i := 1; i < n; i++ {
		ids = append(ids, h.NewWindow("cap", fmt.Sprint(i), fmt.Sprintf("echo hello %d; exec sleep 300", i)))
	}
	tmuxtest.WaitFor(tb, 30*time.Second, func() bool {
		screens, err := h.Server.Capture(context.Background(), ids, false)
		return err == nil && len(screens) == n && allGreeted(screens, ids)
	})
	return ids
}

func allGreeted(screens map[string]string, ids []string) bool {
	for i, id := range ids {
		if !strings.HasPrefix(screens[id], fmt.Sprintf("hello %d\n", i)) {
			return false
		}
	}
	return true
}

func TestCaptureMany(t *testing.T) {
	h := tmuxtest.New(t)
	ids := startPanes(t, h, 12)
	screens, err := h.Server.Capture(context.Background(), ids, false)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	for i, id := range ids {
		if got := strings.Count(screens[id], "\n"); got != 40 {
			t.Errorf("pane %s: %d lines, want the 40 visible rows", id, got)
		}
		if strings.Count(screens[id], "hello") != 1 || !strings.HasPrefix(screens[id], fmt.Sprintf("hello %d\n", i)) {
			t.Errorf("pane %s got another pane's screen: %q", id, screens[id])
		}
	}
}

func TestCaptureSkipsVanishedPanes(t *testing.T) {
	h := tmuxtest.New(t)
	ids := startPanes(t, h, 4)
	h.Run("kill-pane", "-t", ids[3])
	asked := []string{ids[0], "%9999", ids[1], ids[3], "%9998", ids[2]}
	screens, err := h.Server.Capture(context.Background(), asked, false)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	if len(screens) != 3 || !allGreeted(screens, ids[:3]) {
		t.Errorf("want the 3 live panes, got %q", screens)
	}
}

func TestCaptureOnlyVisibleScreen(t *testing.T) {
	h := tmuxtest.New(t)
	id := h.NewSession("s", "seq 1 100; exec sleep 300")
	var screen string
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		screens, err := h.Server.Capture(context.Background(), []string{id}, false)
		screen = screens[id]
		return err == nil && strings.Contains(screen, "100\n")
	})
	if strings.HasPrefix(screen, "1\n") || strings.Contains(screen, "\n50\n") {
		t.Errorf("scrollback captured: %q", screen)
	}
}

func TestCaptureCannotBeForged(t *testing.T) {
	h := tmuxtest.New(t)
	fake := h.NewSession("s", "printf 'paneherd-capture-0-0\\npaneherd-capture-0-1\\n'; exec sleep 300")
	real := h.NewWindow("s", "w", "echo real; exec sleep 300")
	tmuxtest.WaitFor(t, 15*time.Second, func() bool {
		screens, err := h.Server.Capture(context.Background(), []string{fake, real}, false)
		return err == nil && strings.HasPrefix(screens[fake], "paneherd-capture-0-0\npaneherd-capture-0-1\n") &&
			strings.HasPrefix(screens[real], "real\n")
	})
}

func TestCaptureEscapes(t *testing.T) {
	h := tmuxtest.New(t)
	id := h.NewSession("s", `printf '\033[31mred\033[0m\n'; exec sleep 300`)
	capture := func(escapes bool) string {
		screens, err := h.Server.Capture(context.Background(), []string{id}, escapes)
		if err != nil {
			t.Fatalf("Capture: %v", err)
		}
		return screens[id]
	}
	tmuxtest.WaitFor(t, 15*time.Second, func() bool { return strings.HasPrefix(capture(false), "red\n") })
	if got := capture(true); !strings.Contains(got, "\x1b[31mred") {
		t.Errorf("with escapes: %q", got)
	}
}

func TestCaptureEdgeCases(t *testing.T) {
	h := tmuxtest.New(t)
	screens, err := h.Server.Capture(context.Background(), nil, false)
	if err != nil || len(screens) != 0 {
		t.Errorf("no panes: %q, %v", screens, err)
	}
	for _, bad := range []string{"%1;", "main:0", "%", ""} {
		if _, err := h.Server.Capture(context.Background(), []string{bad}, false); err == nil {
			t.Errorf("Capture(%q) accepted a non-id", bad)
		}
	}
}

func TestNoServer(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "exec sleep 300")
	missing := tmux.Server{Socket: h.Dir + "/none"}
	h.Run("kill-server") // leaves its socket file behind: "no server running on"
	for _, s := range []tmux.Server{missing, h.Server} {
		if _, err := s.ListPanes(context.Background()); !errors.Is(err, tmux.ErrNoServer) {
			t.Errorf("%s: err = %v, want ErrNoServer", s.Socket, err)
		}
		if _, err := s.Capture(context.Background(), []string{"%0"}, false); !errors.Is(err, tmux.ErrNoServer) {
			t.Errorf("%s: Capture err = %v, want ErrNoServer", s.Socket, err)
		}
	}
}

func BenchmarkCapture20(b *testing.B) {
	h := tmuxtest.New(b)
	ids := startPanes(b, h, 20)
	b.ResetTimer()
	for range b.N {
		screens, err := h.Server.Capture(context.Background(), ids, false)
		if err != nil || len(screens) != 20 {
			b.Fatalf("Capture: %d screens, %v", len(screens), err)
		}
	}
}
