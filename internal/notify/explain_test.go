package notify

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// A dialog's and an error's notifications carry the Explainer's words when it answers
// within ExplainWait, the pack's words when it does not; other notifications, and any
// with ExplainWait 0, never ask it.
func TestExplainWordsCriticalNotifications(t *testing.T) {
	dialog := Notification{PaneID: "%2", Name: "web", Target: "s:2.0", State: "NEEDS_CONFIRMATION", Event: NeedsConfirmation,
		Title: "web needs your confirmation", Summary: "Do you want to proceed?", Body: "Do you want to proceed?\nin s:2.0", Critical: true}
	finished := Notification{PaneID: "%1", Name: "api", Target: "s:1.0", State: "READY", Event: Finished,
		Title: "api finished", Body: "in s:1.0"}
	words := Explanation{Summary: "Claude asks to run make deploy", Actions: []string{"approve or deny the command"}}
	for _, tc := range []struct {
		name  string
		wait  time.Duration
		delay time.Duration // how long the explainer takes
		want  string        // the dialog's body
		asked []string
	}{
		{"in time", time.Second, 0, "Claude asks to run make deploy\n→ approve or deny the command\nin s:2.0", []string{"%2"}},
		{"too slow", 50 * time.Millisecond, time.Hour, dialog.Body, []string{"%2"}},
		{"off", 0, 0, dialog.Body, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := allOn()
			cfg.ExplainWait = tc.wait
			n := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, cfg)
			var mu sync.Mutex
			var asked []string
			n.Explain = func(ctx context.Context, x Notification) (Explanation, bool) {
				mu.Lock()
				asked = append(asked, x.PaneID)
				mu.Unlock()
				select {
				case <-ctx.Done():
					return Explanation{}, false
				case <-time.After(tc.delay):
					return words, true
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer func() { cancel(); n.explaining.Wait() }()
			burst := []Notification{dialog}
			n.explain(ctx, burst)
			if burst[0].Body != tc.want || burst[0].Explained != (tc.want != dialog.Body) {
				t.Errorf("dialog body %q (explained %v), want %q", burst[0].Body, burst[0].Explained, tc.want)
			}
			if first, _, _ := strings.Cut(burst[0].Body, "\n"); burst[0].Summary != first {
				t.Errorf("dialog summary %q, want the body's first line %q", burst[0].Summary, first)
			}
			// Neither a finished turn nor a burst of several (its summary shows titles
			// only) asks the model.
			n.explain(ctx, []Notification{finished})
			n.explain(ctx, []Notification{dialog, dialog})
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(asked, ",") != strings.Join(tc.asked, ",") {
				t.Errorf("asked about %v, want %v", asked, tc.asked)
			}
		})
	}
}
