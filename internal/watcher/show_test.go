package watcher

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
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
