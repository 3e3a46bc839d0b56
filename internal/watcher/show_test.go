package watcher

import (
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

// Under @paneherd-show attention an agent's READY stops being news state.NewlyReady after
// it began: the watcher asks for a look then (due) and renders the line again, though no
// state changed.
func TestLineRenderedAgainWhenReadyStopsBeingNews(t *testing.T) {
	w := newWatcher(t)
	var pushed []string
	w.Push = func(line string) error { pushed = append(pushed, line); return nil }
	w.SetRender(statusline.Options{Show: statusline.ShowAttention})
	step := readyClaude(t, w)
	if len(pushed) == 0 || pushed[len(pushed)-1] != "[api: READY]" {
		t.Fatalf("pushed %q; want the newly READY agent shown", pushed)
	}
	due, ok := w.due()["%1"]
	if !ok || due.Before(t0.Add(state.NewlyReady)) || due.After(t0.Add(state.NewlyReady+3*time.Second)) {
		t.Fatalf("due %v (%v); want the moment the READY stops being news, about %v", due, ok, t0.Add(state.NewlyReady))
	}
	step(due)
	if got := pushed[len(pushed)-1]; got != "" {
		t.Errorf("after %v the line is %q; want the READY gone", state.NewlyReady, got)
	}
}

// Under @paneherd-show attention a remote agent's READY stops being news too: the line is
// published again then, though no pane of this server is due a look.
func TestLineRenderedAgainWhenARemoteReadyStopsBeingNews(t *testing.T) {
	w := newWatcher(t)
	var mu sync.Mutex
	var pushed []string
	w.Push = func(line string) error { mu.Lock(); pushed = append(pushed, line); mu.Unlock(); return nil }
	w.SetRender(statusline.Options{Show: statusline.ShowAttention})
	if err := w.Step(observe.Frame{At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-state.NewlyReady + 300*time.Millisecond)
	w.SetFleet([]wire.Host{{Name: "devbox", State: wire.HostUp}},
		[]wire.Pane{{ID: "%1", Name: "api", Host: "devbox", Pack: "claude", State: "READY", Since: since}})
	last := func() string {
		mu.Lock()
		defer mu.Unlock()
		return pushed[len(pushed)-1]
	}
	if got := last(); got != "[devbox/api: READY]" {
		t.Fatalf("pushed %q; want the newly READY remote agent shown", got)
	}
	if !tmuxtest.Poll(5*time.Second, func() bool { return last() == "" }) {
		t.Errorf("%v after the remote READY began the line is %q; want it gone", state.NewlyReady, last())
	}
	w.Close()
}
