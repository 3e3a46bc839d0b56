package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// Triggered hears every action the delivery engine audits; a trigger (a send in an
// envelope: the runtime model's delivery) that ended is taken at the next reconcile
// (acked). A person's plain send is never followed up: a restart would cut a live agent
// short for a prompt its sender can see was not taken. It never blocks on a reconcile.
func (s *Supervisor) Triggered(t wire.Trigger) {
	if t.Kind != "send" || t.Envelope == "" {
		return
	}
	s.phases.mu.Lock()
	s.phases.acks[t.PaneID] = t.Outcome
	s.phases.mu.Unlock()
	s.Poke()
}

func (s *Supervisor) takeAck(paneID string) (string, bool) {
	s.phases.mu.Lock()
	defer s.phases.mu.Unlock()
	o, ok := s.phases.acks[paneID]
	delete(s.phases.acks, paneID)
	return o, ok
}

// acked follows up the last trigger to a live worker: an acknowledged one clears its
// resumes; an unacknowledged one (ACK_TIMEOUT) restarts it, at most maxResumes times in a
// row, continuing its conversation, or fresh when it sat idle past staleAfter or is in a
// crash loop (one failure short of being given up on). The trigger is not sent again:
// its sender has ACK_TIMEOUT and decides. Under s.mu.
func (s *Supervisor) acked(ctx context.Context, w *wire.Worker, rt *runtime, rec wire.Pane) {
	taken, ok := s.takeAck(w.PaneID)
	switch {
	case !ok:
		return
	case taken == string(outcome.Delivered):
		w.Resumes = 0
		s.event(w, "ack", "the prompt was taken")
		return
	case taken != string(outcome.AckTimeout):
		return
	}
	if w.Resumes >= maxResumes {
		s.event(w, "ack-timeout", fmt.Sprintf("not taken; already resumed %d times: left as it is", w.Resumes))
		return
	}
	w.Resumes++
	var idle time.Duration // READY, untouched, since its state last changed
	if rec.State == string(state.Ready) {
		idle = s.now().Sub(rec.Since)
	}
	cfg := s.config()
	crashing := len(recent(w.Failures, s.now(), cfg.CrashWindow)) >= cfg.CrashLimit-1
	fresh := idle > staleAfter || crashing
	how := "continuing its conversation"
	if fresh {
		how = "fresh"
	}
	s.event(w, "ack-timeout", fmt.Sprintf("not taken: restarting it (%s, resume %d of %d)", how, w.Resumes, maxResumes))
	w.Why, rt.down = "a prompt was not taken", "ack-timeout"
	s.restart(ctx, w, rt, fresh)
}
