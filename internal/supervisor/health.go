package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// healthRetry spaces out tries at a health prompt that delivery refused (the worker
// turned busy, a person typed): nothing was sent, so it is tried again, not skipped.
const healthRetry = time.Minute

// healthDue sends the worker's health prompt when it is due: HealthEvery (and at least
// HealthGap) after the last, while it is READY and nobody is typing in its session, one
// at a time. It goes through the daemon's send path, with every check of `send` (an
// empty input box, a person's quiet window). Under s.mu; the send runs on its own, under
// ctx.
func (s *Supervisor) healthDue(ctx context.Context, w *wire.Worker, rt *runtime, rec wire.Pane) {
	if w.HealthEvery <= 0 || w.HealthPaused || rt.healthBusy || rt.handoffBusy || w.PersonActive || rec.State != string(state.Ready) {
		return
	}
	now := s.now()
	last := rt.lastHealth
	if last.IsZero() {
		last = rt.since
	}
	if now.Sub(last) < max(w.HealthEvery, s.config().HealthGap) || now.Before(rt.healthNext) {
		return
	}
	rt.healthBusy = true
	ask := wire.SendAsk{SendRequest: wire.SendRequest{ID: newID(), PaneID: w.PaneID, Text: w.HealthPrompt,
		Reason: "health prompt"}}
	name, id := w.Name, w.ID
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		res, err := s.Send(ctx, ask)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.healthSent(name, id, ask.ID, res, err)
	}()
}

// healthSent takes a health prompt's outcome: one that was not taken (no change of
// screen) counts, and healthMisses in a row pause them until a person continues the
// worker. Under s.mu.
func (s *Supervisor) healthSent(name, workerID, id string, res wire.Result, err error) {
	w, rt := s.workers[name], s.run[name]
	if w == nil || w.ID != workerID {
		return // retired meanwhile (and the name perhaps given to another)
	}
	rt.healthBusy = false
	now := s.now()
	switch {
	case err != nil || !res.Typed:
		rt.healthNext = now.Add(healthRetry)
		detail := fmt.Sprintf("not sent: %s %s", res.Outcome, res.Detail)
		if err != nil {
			detail = "not sent: " + err.Error()
		}
		s.event(w, "health-skipped", detail)
		return
	case res.Outcome == outcome.Delivered:
		rt.healthMiss = 0
	default:
		rt.healthMiss++
	}
	rt.lastHealth = now
	w.LastTrigger = id
	s.event(w, "health-prompt", fmt.Sprintf("%s (%d in a row not taken)", res.Outcome, rt.healthMiss))
	if rt.healthMiss >= healthMisses {
		w.HealthPaused = true
		why := fmt.Sprintf("%d health prompts in a row changed nothing on its screen", rt.healthMiss)
		s.event(w, "health-paused", why)
		s.notify(w, w.Name+" stopped answering its health prompts", why+"; paneherd workers continue "+w.Name+" resumes them")
	}
	s.save(w)
}
