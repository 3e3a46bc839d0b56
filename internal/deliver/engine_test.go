package deliver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

// TestRateMemoryFollowsActivePanes: panes come and go for months; the rate limit keeps
// only those with actions lately.
func TestRateMemoryFollowsActivePanes(t *testing.T) {
	e := New(tmux.Server{}, Config{RateLimit: 10, RateWindow: time.Minute})
	at := time.Unix(1_700_000_000, 0)
	e.now = func() time.Time { return at }
	for i := 0; i < 5000; i++ {
		at = at.Add(10 * time.Second)
		done, ok := e.admit(fmt.Sprintf("%%%d", i))
		if !ok {
			t.Fatalf("action %d refused", i)
		}
		done()
	}
	if n := e.recent.Len(); n > 20 {
		t.Errorf("the rate limit remembers %d panes after 5000 actions on as many; want only those of the last minute", n)
	}
}

// TestAuditFailureReachesTheSender: an action the store could not record says so in its
// result, not only in the daemon's log.
func TestAuditFailureReachesTheSender(t *testing.T) {
	e := New(tmux.Server{}, Config{RateLimit: 10, RateWindow: time.Minute})
	e.Lookup = func(string) (Pane, bool) { return Pane{}, false }
	e.Audit = func(wire.Trigger) error { return errors.New("disk full") }
	res := e.Send(context.Background(), wire.SendRequest{ID: "t1", PaneID: "%9", Text: "hi"})
	if res.Outcome != outcome.TargetNotFound || !strings.Contains(res.AuditError, "disk full") {
		t.Errorf("result %+v; want TARGET_NOT_FOUND with the audit's error", res)
	}
}

// TestAuditMasksTheDetail: a result's detail quotes the screen (an answered dialog's
// question, what a pane showed instead of its prompt); a secret in it reaches neither
// the audit nor the log.
func TestAuditMasksTheDetail(t *testing.T) {
	e := New(tmux.Server{}, Config{RateLimit: 10, RateWindow: time.Minute})
	var audited wire.Trigger
	e.Audit = func(tr wire.Trigger) error { audited = tr; return nil }
	var log bytes.Buffer
	e.Log = zerolog.New(&log)
	res := e.record(wire.Trigger{Kind: "answer"}, wire.Result{ID: "t1", PaneID: "%1", Outcome: outcome.Answered,
		Detail: "pressed 1 on: Bash command: mysql -uroot -pS3cretPass app"})
	const masked = "mysql -uroot -p…[masked password] app"
	for what, text := range map[string]string{"audit": audited.Detail, "log": log.String(), "result": res.Detail} {
		if strings.Contains(text, "S3cretPass") || !strings.Contains(text, masked) {
			t.Errorf("%s not masked: %s", what, text)
		}
	}
}

// Sleep returns at once for no wait (the supervisor's poke gap already spent) and as soon
// as its context ends, with the context's error.
func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), 0); err != nil {
		t.Fatalf("no wait: %v", err)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a wait that ran out: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, -time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context, no wait: %v", err)
	}
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context: %v", err)
	}
}
