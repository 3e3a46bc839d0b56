package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/store"
)

// Reconcile compares every record with tmux as the watcher sees it, and acts: a worker
// whose pane moved or was renamed is re-bound (REGISTRY_DRIFT, logged and counted); one
// whose pane died or vanished goes offline and is restarted as its policy says; a
// frozen one is nudged; a health prompt that is due goes out.
func (s *Supervisor) Reconcile(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	active := s.activeSessions(ctx)
	changed := false
	for _, name := range s.names() {
		w, rt := s.workers[name], s.run[name]
		before := *w
		s.reconcileOne(ctx, w, rt, active)
		if !sameRecord(before, *w) {
			changed = true
			if err := s.Store.PutWorker(*w); err != nil {
				s.Log.Error().Err(err).Str("worker", w.Name).Msg("worker record not stored")
			}
		}
	}
	if changed || len(s.workers) > 0 {
		s.publish() // heartbeats: a small file, no fsync
	}
}

func (s *Supervisor) reconcileOne(ctx context.Context, w *store.Worker, rt *runtime, active map[string]bool) {
	w.PersonActive = active[w.Session]
	rec, _, ok := s.Pane(w.PaneID)
	if ok && w.Server != "" && rec.Server != "" && rec.Server != w.Server {
		ok = false // the id names a pane of a newer tmux server
	}
	if !rt.seen {
		// Just launched: the watcher lists panes every few seconds, and until it has
		// listed this one its record is the dead pane's, or none.
		if ok && rec.PID == w.PID {
			rt.seen = true
		} else if s.now().Sub(rt.startedAt) < launchGrace {
			return
		}
	}
	switch {
	case !ok:
		s.lost(w, rt, "its pane is gone", -1)
	case rec.State == string(state.Offline):
		status, err := s.deadStatus(ctx, w.PaneID)
		if errors.Is(err, errAlive) {
			// Respawned: the watcher has listed the new process but not read its
			// screen yet, so its record still says OFFLINE. Its next look will.
			return
		}
		if err == nil && status < 0 && rt.deadChecks < 2 {
			rt.deadChecks++ // tmux may not have reaped it yet: look again soon
			s.Poke()
			return
		}
		rt.deadChecks = 0
		s.lost(w, rt, deathText(status), status)
	default:
		s.alive(ctx, w, rt, rec)
		return
	}
	if rt.restartDue {
		s.restart(ctx, w, rt, w.Why, false)
	}
}

// alive updates a worker whose pane lives, re-binding it if tmux moved it.
func (s *Supervisor) alive(ctx context.Context, w *store.Worker, rt *runtime, rec store.Pane) {
	now := s.now()
	w.Heartbeat = now
	if w.Server == "" {
		w.Server = rec.Server
	}
	if rec.Session != w.Session || rec.Window != w.Window {
		s.drift(w, "moved", fmt.Sprintf("its pane %s is now in %s:%s, was %s:%s; re-bound", w.PaneID, rec.Session, rec.Window, w.Session, w.Window))
		w.Session, w.Window = rec.Session, rec.Window
	}
	if rec.PID != 0 && w.PID != 0 && rec.PID != w.PID {
		s.drift(w, "replaced", fmt.Sprintf("the process in its pane %s is now %d, was %d (respawned by someone else); re-bound", w.PaneID, rec.PID, w.PID))
	}
	if rec.PID != 0 {
		w.PID = rec.PID
	}
	st := state.State(rec.State)
	switch Status(w.Status) {
	case Failed:
		return // until a person says so (paneherd workers continue)
	case Starting, Offline:
		if st != state.Ready {
			w.Status = string(Starting)
			break
		}
		w.Status, w.Why = string(Ready), ""
		s.event(w, "ready", fmt.Sprintf("READY %s after it started", now.Sub(rt.startedAt).Round(time.Millisecond)))
	default:
		w.Status = string(Ready)
	}
	if p, ok := s.phaseOf(w.PaneID); ok && w.Status == string(Ready) {
		w.Status, w.LastTrigger = string(p.status), p.trigger
	}
	s.acked(ctx, w, rt, rec)
	if w.Status == string(Starting) {
		return
	}
	s.watchStall(ctx, w, rt, rec)
	s.healthDue(w, rt, rec)
}

// drift records a record that no longer matched tmux.
func (s *Supervisor) drift(w *store.Worker, kind, detail string) {
	w.Why = "REGISTRY_DRIFT: " + detail
	s.event(w, "drift", w.Why)
	if s.Metrics != nil {
		s.Metrics.Drift(kind)
	}
}

// lost handles a worker whose pane died (status: its exit status, -1 unknown) or
// vanished: offline, and due for a restart if its policy says so and it is not crashing
// in a loop.
func (s *Supervisor) lost(w *store.Worker, rt *runtime, why string, status int) {
	if w.Status == string(Failed) || w.Status == string(Offline) {
		return
	}
	now := s.now()
	w.Status, w.Why = string(Offline), why
	failure := status != 0
	if failure {
		w.Failures = append(recent(w.Failures, now, s.cfg.CrashWindow), now)
	}
	s.event(w, "offline", why)
	switch {
	case len(recent(w.Failures, now, s.cfg.CrashWindow)) >= s.cfg.CrashLimit:
		s.fail(w, fmt.Sprintf("it failed %d times within %s (last: %s)", len(w.Failures), s.cfg.CrashWindow, why))
	case restartable(w.Restart, failure):
		rt.restartDue = true
	default:
		s.event(w, "not-restarted", "restart policy "+w.Restart)
	}
}

// restart launches the worker again, with its resume command unless fresh is asked, it
// has none, or its last resume died young (there was nothing to continue). One that
// tmux refused stays due, and is tried at the next reconcile.
func (s *Supervisor) restart(ctx context.Context, w *store.Worker, rt *runtime, why string, fresh bool) {
	now := s.now()
	cmd := w.Command
	if !fresh && w.Resume != "" && !(rt.resumed && now.Sub(rt.startedAt) < resumeGrace) {
		cmd = w.Resume
	}
	if err := s.launch(ctx, w, cmd); err != nil {
		rt.restartDue = true
		s.event(w, "restart-failed", err.Error())
		return
	}
	rt.restartDue, rt.seen, rt.deadChecks = false, false, 0
	rt.startedAt, rt.resumed = now, cmd == w.Resume && cmd != w.Command
	rt.nudges, rt.escalated = 0, false
	w.Restarts++
	w.Status, w.Why = string(Starting), why
	s.event(w, "restarted", fmt.Sprintf("%s; ran %s (restart %d)", why, cmd, w.Restarts))
	if s.Metrics != nil {
		s.Metrics.Restart(w.Name, why)
	}
	if s.Wake != nil {
		s.Wake() // the watcher lists panes again soon, and sees the new process
	}
}

// fail gives up on a worker until a person says so, and tells them.
func (s *Supervisor) fail(w *store.Worker, why string) {
	w.Status, w.Why = string(Failed), why
	s.event(w, "failed", why)
	s.notify(w, w.Name+" failed and is not restarted", why+"; paneherd workers continue "+w.Name+" restarts it")
}

func restartable(policy string, failure bool) bool {
	switch policy {
	case Always:
		return true
	case Never:
		return false
	}
	return failure
}

// recent keeps the times within window of now.
func recent(ts []time.Time, now time.Time, window time.Duration) []time.Time {
	var out []time.Time
	for _, t := range ts {
		if now.Sub(t) < window {
			out = append(out, t)
		}
	}
	return out
}

func deathText(status int) string {
	if status < 0 {
		return "its process died (killed, or exit status unknown)"
	}
	return fmt.Sprintf("its process exited with status %d", status)
}

// activeSessions are the sessions where a person typed within the quiet window.
func (s *Supervisor) activeSessions(ctx context.Context) map[string]bool {
	active := map[string]bool{}
	if len(s.workers) == 0 {
		return active
	}
	clients, err := s.Server.Clients(ctx)
	if err != nil {
		return active
	}
	now := s.now()
	for _, c := range clients {
		if !c.Control && now.Sub(c.Activity) < s.cfg.Quiet {
			active[c.Session] = true
		}
	}
	return active
}

func (s *Supervisor) names() []string {
	names := make([]string, 0, len(s.workers))
	for n := range s.workers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sameRecord: nothing worth storing changed (the heartbeat alone is not).
func sameRecord(a, b store.Worker) bool {
	a.Heartbeat, b.Heartbeat = time.Time{}, time.Time{}
	return fmt.Sprint(a) == fmt.Sprint(b)
}
