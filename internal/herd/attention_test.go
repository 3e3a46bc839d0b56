package herd

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

func TestNextAttention(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	panes := []wire.Pane{
		{ID: "%1", State: "READY", Pack: "claude", Since: ago(time.Minute)},
		{ID: "%2", State: "NEEDS_CONFIRMATION", Pack: "codex", Since: ago(time.Minute)},
		{ID: "%3", State: "NEEDS_CONFIRMATION", Pack: "claude", Since: ago(time.Hour)},
		{ID: "%4", State: "ERROR", Pack: "gemini", Since: ago(time.Second)},
		{ID: "%5", State: "READY", Pack: "shell", Since: ago(time.Second)},
		{ID: "%6", State: "READY", Pack: "claude", Since: ago(time.Hour)},
		{ID: "%7", State: "BUSY", Pack: "claude", Since: ago(time.Second)},
		{ID: "%8", State: "READY", Pack: "codex", Since: ago(time.Second)},
	}
	// The longest-waiting dialog first, then the other dialog, the error, and the fresh
	// finishes, freshest first; idle shells, old finishes and busy panes never.
	order := []string{"%3", "%2", "%4", "%8", "%1"}
	current := "%7"
	for i := 0; i < len(order)+1; i++ {
		next := NextAttention(panes, current, now)
		if want := order[i%len(order)]; next == nil || next.ID != want {
			t.Fatalf("press %d from %s: got %v, want %s", i+1, current, next, want)
		}
		current = next.ID
	}
	if next := NextAttention(panes[4:5], "%5", now); next != nil {
		t.Errorf("only an idle shell: got %s, want nobody", next.ID)
	}
}

// TestNextAttentionAcrossHosts: a host's pane is named HOST:%ID, so one whose id is the
// current pane's here is another pane, and pressing on from it goes on.
func TestNextAttentionAcrossHosts(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	panes := []wire.Pane{
		{ID: "%1", Host: "devbox", State: "NEEDS_CONFIRMATION", Pack: "claude", Since: now.Add(-time.Hour)},
		{ID: "%1", State: "NEEDS_CONFIRMATION", Pack: "claude", Since: now.Add(-time.Minute)},
	}
	current := "%1"
	for _, want := range []string{"devbox:%1", "%1", "devbox:%1"} {
		next := NextAttention(panes, current, now)
		if next == nil || TargetOf(*next) != want {
			t.Fatalf("press from %s: got %v, want %s", current, next, want)
		}
		current = TargetOf(*next)
	}
}
