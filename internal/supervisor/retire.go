package supervisor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/store"
)

// Retire stops a worker for good: its pack's interrupt keys, up to RetireWait for its
// process to end, then its pane is killed; its record goes, its history stays. The lock
// is held throughout, so no reconcile restarts the worker as it quits.
func (s *Supervisor) Retire(ctx context.Context, name string) (store.Worker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.workers[name]
	if w == nil {
		return store.Worker{}, s.unknown(name)
	}
	how := s.stop(ctx, w)
	if err := s.Store.DeleteWorker(name); err != nil {
		return *w, fmt.Errorf("retire: %s stopped, but its record stays: %w", name, err)
	}
	delete(s.workers, name)
	delete(s.run, name)
	s.event(w, "retired", how)
	s.publish()
	return *w, nil
}

// stop ends the worker's process and closes its pane, and says how.
func (s *Supervisor) stop(ctx context.Context, w *store.Worker) string {
	if !s.paneExists(ctx, w.PaneID) {
		return "its pane was gone already"
	}
	how := "no interrupt keys"
	if _, pack, _ := s.Pane(w.PaneID); pack != nil && len(pack.Actions.Interrupt) > 0 {
		res := s.Press(ctx, deliver.PressRequest{ID: newID(), PaneID: w.PaneID, Keys: pack.Actions.Interrupt,
			Kind: "interrupt", Reason: "retire", Gap: keyGap})
		how = fmt.Sprintf("pressed %s (%s)", strings.Join(pack.Actions.Interrupt, " "), res.Outcome)
		if s.quits(ctx, w.PaneID) {
			how += "; it quit"
		} else {
			how += fmt.Sprintf("; still running after %s", s.cfg.RetireWait)
		}
	}
	if _, err := s.Server.Run(ctx, nil, "kill-pane", "-t", w.PaneID); err != nil && s.paneExists(ctx, w.PaneID) {
		return how + "; kill-pane failed: " + err.Error()
	}
	return how + "; pane closed"
}

// quits waits up to RetireWait for the pane's process to end (the pane dead, or gone).
func (s *Supervisor) quits(ctx context.Context, id string) bool {
	deadline := time.Now().Add(s.cfg.RetireWait)
	for {
		if _, err := s.deadStatus(ctx, id); err == nil || !s.paneExists(ctx, id) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Continue is a person saying go on: a failed worker is restarted, paused health prompts
// resume, a frozen worker is watched anew.
func (s *Supervisor) Continue(ctx context.Context, name string) (store.Worker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, rt := s.workers[name], s.run[name]
	if w == nil {
		return store.Worker{}, s.unknown(name)
	}
	var did []string
	if w.Status == string(Failed) {
		w.Failures, w.Status = nil, string(Offline)
		rt.restartDue = true
		did = append(did, "restarting it")
	}
	if w.HealthPaused {
		w.HealthPaused, rt.healthMiss = false, 0
		did = append(did, "health prompts resumed")
	}
	if rt.escalated || rt.nudges > 0 {
		rt.escalated, rt.nudges = false, 0
		did = append(did, "stall watch reset")
	}
	if len(did) == 0 {
		did = append(did, "nothing to do: it is "+w.Status)
	}
	s.event(w, "continued", strings.Join(did, "; "))
	if rt.restartDue {
		s.restart(ctx, w, rt, "a person continued it", false)
	}
	s.save(w)
	return *w, nil
}

func (s *Supervisor) unknown(name string) error {
	var names []string
	for n := range s.workers {
		names = append(names, n)
	}
	if len(names) == 0 {
		return fmt.Errorf("no managed worker %q: there are none (paneherd create starts one)", name)
	}
	return fmt.Errorf("no managed worker %q (have: %s)", name, strings.Join(s.names(), ", "))
}
