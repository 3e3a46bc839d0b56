package supervisor

import (
	"context"
	"fmt"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// checkHandoff checks a worker's handoff, whoever asked (the CLI, MCP): a mark from 1 to
// 100 percent and a prompt send would take, both or neither.
func checkHandoff(at int, prompt string) error {
	switch {
	case (at != 0) != (prompt != ""):
		return errorf("create: --handoff-at and --handoff-prompt go together")
	case at < 0 || at > 100:
		return errorf("create: --handoff-at %d%%: give a percent of the model's window, 1 to 100", at)
	}
	if prompt != "" {
		if _, err := deliver.Sanitize(prompt); err != nil {
			return errorf("create: --handoff-prompt: %v", err)
		}
	}
	return nil
}

// handoffDue sends the worker's handoff prompt once its context (its agent's own count,
// as the pane's record has it) has passed HandoffAt, while it is READY and nobody types
// in its session: once, through the daemon's send path with every check of `send`, until
// its context is seen below the mark again (a compaction, a new conversation), which arms
// it anew. A context not known arms nothing and sends nothing. Under s.mu; the send runs
// on its own, under ctx.
func (s *Supervisor) handoffDue(ctx context.Context, w *wire.Worker, rt *runtime, rec wire.Pane) {
	pct, known := rec.Context.UsedPct.Get()
	if w.HandoffAt <= 0 || w.HandoffPrompt == "" || !known {
		return
	}
	if pct < w.HandoffAt {
		if w.HandoffSent {
			w.HandoffSent = false
			s.event(w, "handoff-armed", fmt.Sprintf("context %d%% used, below the %d%% mark again", pct, w.HandoffAt))
			s.save(w) // a new daemon sends it at the next passing
		}
		return
	}
	if w.HandoffSent || rt.handoffBusy || rt.healthBusy || w.PersonActive || rec.State != string(state.Ready) ||
		s.now().Before(rt.handoffNext) {
		return
	}
	rt.handoffBusy = true
	ask := wire.SendAsk{SendRequest: wire.SendRequest{ID: newID(), PaneID: w.PaneID, Text: w.HandoffPrompt,
		Reason: fmt.Sprintf("handoff: context %d%% used (mark %d%%)", pct, w.HandoffAt)}}
	name, id := w.Name, w.ID
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		res, err := s.Send(ctx, ask)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.handoffSent(name, id, ask, res, err)
	}()
}

// handoffSent takes the handoff prompt's outcome: one delivery refused before anything
// was typed (the worker turned busy, a person typed) is tried again after healthRetry;
// one typed counts as sent, whatever its acknowledgement. Under s.mu.
func (s *Supervisor) handoffSent(name, workerID string, ask wire.SendAsk, res wire.Result, err error) {
	w, rt := s.workers[name], s.run[name]
	if w == nil || w.ID != workerID {
		return // retired meanwhile (and the name perhaps given to another)
	}
	rt.handoffBusy = false
	if err != nil || !res.Typed {
		rt.handoffNext = s.now().Add(healthRetry)
		detail := fmt.Sprintf("not sent: %s %s", res.Outcome, res.Detail)
		if err != nil {
			detail = "not sent: " + err.Error()
		}
		s.event(w, "handoff-skipped", detail)
		return
	}
	w.HandoffSent, w.LastTrigger = true, ask.ID
	s.event(w, "handoff", fmt.Sprintf("%s: %s", ask.Reason, res.Outcome))
	s.save(w)
}
