package control

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestCommandsAndOutputEvents(t *testing.T) {
	h := tmuxtest.New(t)
	pane := h.NewSession("s", "exec cat")
	var mu sync.Mutex
	var events []Event
	c, err := Attach(h.Server, "s", "ignore-size,pause-after=1", func(e Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	replies, err := c.Run(ctx, [][]string{
		{"list-panes", "-a", "-F", "#{pane_id} \"quoted\" ;x"},
		{"capture-pane", "-p", "-t", "%999"},
		{"display-message", "-p", "after"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if replies[0].Failed || strings.TrimSpace(replies[0].Output) != pane+` "quoted" ;x` {
		t.Errorf("list-panes reply %+v", replies[0])
	}
	if !replies[1].Failed || replies[2].Output != "after\n" {
		t.Errorf("a failing command must fail alone: %+v %+v", replies[1], replies[2])
	}

	h.Run("send-keys", "-t", pane, "-l", "%end 1 2 1 hello")
	h.Run("send-keys", "-t", pane, "Enter")
	tmuxtest.WaitFor(t, 5*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range events {
			if e.Kind == "output" && len(e.Args) > 0 && e.Args[0] == pane {
				return true
			}
		}
		return false
	})
	screen, err := c.Run(ctx, [][]string{{"capture-pane", "-p", "-t", pane}})
	if err != nil || !strings.Contains(screen[0].Output, "%end 1 2 1 hello") {
		t.Errorf("a screen line that looks like %%end cut the reply: %+v %v", screen, err)
	}
	h.Run("kill-session", "-t", "s")
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not exit with its session")
	}
	if _, err := c.Run(ctx, [][]string{{"list-sessions"}}); err != ErrClosed {
		t.Errorf("Run after exit: %v", err)
	}
}
