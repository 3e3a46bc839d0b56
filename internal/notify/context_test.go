package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// A pane's context passing the mark is told of once; again only once it was seen below
// it. Unknown figures (a footer a dialog hides) neither pass nor fall.
func TestContextNotifiesOncePerPassing(t *testing.T) {
	cfg := allOn()
	cfg.ContextMark, cfg.Enabled[ContextFull] = 85, true
	n := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, cfg)
	now := time.Unix(1_700_000_000, 0)
	n.Now = func() time.Time { return now }
	pane := func(pct int, known bool) wire.Pane {
		p := wire.Pane{ID: "%1", Name: "api", Session: "s", State: "READY"}
		if known {
			p.Context = wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(pct), Tokens: int64(pct) * 2000, Window: 200_000}
		}
		return p
	}
	before := pane(0, false)
	var told []string
	for _, step := range []struct {
		pct   int
		known bool
		tells bool
	}{
		{50, true, false}, {84, true, false}, {86, true, true}, {0, false, false}, {90, true, false},
		{40, true, false}, {88, true, true}, {99, true, false},
	} {
		now = now.Add(5 * time.Minute)
		after := pane(step.pct, step.known)
		n.Context(before, after)
		before = after
		select {
		case x := <-n.in:
			told = append(told, x.Title)
			if !step.tells {
				t.Errorf("at %d%% (known %v): told %q", step.pct, step.known, x.Title)
			}
			if !strings.Contains(x.Body, "past the 85% mark: ") || x.Event != ContextFull {
				t.Errorf("notification %+v", x)
			}
		default:
			if step.tells {
				t.Errorf("at %d%%: nothing told", step.pct)
			}
		}
	}
	if len(told) != 2 || told[0] != "api: context 86% used" {
		t.Errorf("told %q", told)
	}
	off := allOn()
	n.SetConfig(off)
	n.Context(pane(10, true), pane(95, true))
	if len(n.in) != 0 {
		t.Error("told with @paneherd-notify-context 0")
	}
}
