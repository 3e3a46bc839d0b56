package supervisor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/wire"
)

// handoffRig is a health rig whose worker hands off at 85% instead of taking health
// prompts; asks records what its send path was asked.
func handoffRig(t *testing.T) (*healthRig, *[]wire.SendAsk) {
	h := newHealthRig(t)
	h.w.HealthEvery, h.w.HealthPrompt = 0, ""
	h.w.HandoffAt, h.w.HandoffPrompt = 85, "write HANDOFF.md and stop"
	var asks []wire.SendAsk
	send := h.s.Send
	h.s.Send = func(ctx context.Context, ask wire.SendAsk) (wire.Result, error) {
		h.mu.Lock()
		asks = append(asks, ask)
		h.mu.Unlock()
		return send(ctx, ask)
	}
	return h, &asks
}

// at looks at the worker once, its pane in state st with pct% of its context used
// (negative: not known), and waits for a handoff it started.
func (h *healthRig) at(st string, pct int) {
	h.now = h.now.Add(time.Second)
	rec := wire.Pane{ID: "%1", State: st}
	if pct >= 0 {
		rec.Context = wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(pct), Tokens: int64(pct) * 2000, Window: 200_000}
	}
	h.s.mu.Lock()
	h.s.handoffDue(context.Background(), h.w, h.rt, rec)
	h.s.mu.Unlock()
	h.s.wg.Wait()
}

// The handoff prompt goes once the context passes the mark and the worker is READY with
// nobody typing, through the send path, once; it is sent again only after the context
// was seen below the mark.
func TestHandoffOnceAtTheMark(t *testing.T) {
	h, asks := handoffRig(t)
	h.at("READY", 80)
	h.at("BUSY", 86)
	h.at("NEEDS_CONFIRMATION", 90)
	h.w.PersonActive = true
	h.at("READY", 90)
	h.w.PersonActive = false
	if h.count() != 0 {
		t.Fatalf("%d sent below the mark, while BUSY, at a dialog or while a person typed", h.count())
	}
	h.at("READY", 86)
	if h.count() != 1 || !h.w.HandoffSent || h.w.LastTrigger != (*asks)[0].ID {
		t.Fatalf("%d sent at the mark, sent %v; want 1", h.count(), h.w.HandoffSent)
	}
	if a := (*asks)[0]; a.Text != "write HANDOFF.md and stop" || a.PaneID != "%1" || !strings.Contains(a.Reason, "handoff: context 86% used") {
		t.Errorf("asked %+v", a)
	}
	h.at("READY", 95)
	h.at("READY", -1) // a footer hidden: neither passes nor falls
	h.at("READY", 95)
	if h.count() != 1 {
		t.Fatalf("%d sent while the context stayed past the mark; want 1", h.count())
	}
	h.at("BUSY", 20) // compacted
	if h.w.HandoffSent {
		t.Fatal("not armed again by a context below the mark")
	}
	if stored, err := h.s.Store.Workers(); err != nil || len(stored) != 1 || stored[0].HandoffSent {
		t.Fatalf("stored %+v, %v: want armed again (a new daemon sends it at the next passing)", stored, err)
	}
	h.at("READY", 87)
	if h.count() != 2 {
		t.Fatalf("%d sent after the context fell and passed again; want 2", h.count())
	}
	stored, err := h.s.Store.Workers()
	if err != nil || len(stored) != 1 || !stored[0].HandoffSent {
		t.Errorf("stored %+v, %v: want HandoffSent kept (a new daemon sends it not again)", stored, err)
	}
	kinds := eventKinds(t, h)
	if strings.Join(kinds, " ") != "handoff handoff-armed handoff" {
		t.Errorf("events %q", kinds)
	}
}

// A handoff refused before anything was typed (the worker turned busy) is not counted
// as sent: it is tried again a while later.
func TestHandoffRefusedIsTriedAgain(t *testing.T) {
	h, _ := handoffRig(t)
	send := h.s.Send
	h.s.Send = func(ctx context.Context, ask wire.SendAsk) (wire.Result, error) {
		send(ctx, ask)
		return wire.Result{ID: ask.ID, Outcome: outcome.NotReady}, nil
	}
	h.at("READY", 90)
	h.at("READY", 90)
	if h.count() != 1 || h.w.HandoffSent {
		t.Fatalf("%d tries, sent %v: want one try, not sent", h.count(), h.w.HandoffSent)
	}
	h.now = h.now.Add(healthRetry)
	h.at("READY", 90)
	if h.count() != 2 {
		t.Fatalf("%d tries after the retry wait; want 2", h.count())
	}
}

// A handoff asks for a mark and a prompt together, the mark a percent, the prompt one
// send would take (create through the CLI and MCP alike).
func TestCheckHandoff(t *testing.T) {
	for _, tc := range []struct {
		at     int
		prompt string
		ok     bool
	}{{0, "", true}, {85, "go", true}, {100, "go", true}, {85, "", false}, {0, "go", false}, {101, "go", false}, {-5, "go", false},
		{85, "\x1b\x03\n", false}, {85, strings.Repeat("x", deliver.MaxPayload+1), false}} {
		if err := checkHandoff(tc.at, tc.prompt); (err == nil) != tc.ok {
			t.Errorf("checkHandoff(%d, %q) = %v", tc.at, tc.prompt, err)
		}
	}
}

func eventKinds(t *testing.T, h *healthRig) []string {
	t.Helper()
	events, err := h.s.Store.WorkerEvents("api", 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	return kinds
}
