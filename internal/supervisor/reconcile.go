package supervisor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// Reconcile compares every record with tmux as the watcher sees it, and acts: a worker
// whose pane moved or was renamed is re-bound (REGISTRY_DRIFT, logged and counted); one
// whose pane died or vanished goes offline and is restarted as its policy says; a
// frozen one is nudged; a health prompt that is due goes out. ctx is the daemon's: the
// exit watches and health prompts it starts outlive this call and run under it.
func (s *Supervisor) Reconcile(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.workers) == 0 {
		s.phases.forget(nil)
		return
	}
	if err := s.learnServer(ctx); err != nil {
		// Without the server's identity no pane id can be trusted: act on nothing.
		s.Log.Debug().Err(err).Msg("reconcile skipped")
		return
	}
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
	s.phases.forget(s.managedPanes())
	// Heartbeats alone are published at the reconcile clock's pace, not at every poke.
	if changed || (len(s.workers) > 0 && s.now().Sub(s.published) >= reconcileEvery) {
		s.publish()
	}
}

// reconcileOne looks at a worker's pane, decides what that calls for, and does it.
func (s *Supervisor) reconcileOne(ctx context.Context, w *wire.Worker, rt *runtime, active map[string]bool) {
	w.PersonActive = active[w.Session]
	l := s.look(ctx, w, rt)
	switch decide(*w, l) {
	case stepLost:
		s.lost(w, rt, "gone", "its pane is gone", -1)
		s.restartIfDue(ctx, w, rt)
	case stepCheckDead:
		if s.dead(ctx, w, rt, l.suspected) {
			s.restartIfDue(ctx, w, rt)
		}
	case stepExited:
		s.lost(w, rt, "exited", "the agent exited (it drew its exit screen; its process lives on)", 0)
		s.restartIfDue(ctx, w, rt)
	case stepRestart:
		s.restart(ctx, w, rt, false)
	case stepAlive:
		s.alive(ctx, w, rt, l.rec)
	}
}

// step is what a reconcile does with one worker.
type step int

const (
	stepWait      step = iota // just launched, not listed by the watcher yet: look again later
	stepLeaveDown             // given up on, or left down by its policy: nothing to ask tmux
	stepLost                  // its pane is gone: offline, and restarted if that makes it due
	stepCheckDead             // read OFFLINE, or suspected dead: ask tmux, and restart if it is dead and due
	stepExited                // the agent drew its own exit, its process lingering: a clean exit
	stepRestart               // its death is known and a restart is due
	stepAlive                 // its pane lives: re-bind, follow its state, nudge, health
)

// sight is what a reconcile sees of a worker's pane.
type sight struct {
	rec    wire.Pane // the watcher's record of the pane
	listed bool      // the watcher lists the pane: rec is its record
	// seen: the watcher has listed the process launched last, or no launch of this
	// daemon's is on its way.
	seen      bool
	launched  time.Duration // since the worker was last launched, or loaded by this daemon
	suspected bool          // its process ended, or a pane-died hook named it
	exited    time.Duration // how long its pane has read EXITED; 0: it does not
}

// exitedGrace is how long a pane must read EXITED before its worker counts as exited: a
// restart kills what runs there, which one misread frame must never do.
const exitedGrace = 2 * time.Second

// launching: just launched, and the watcher, which lists panes every few seconds, has
// not listed this one yet: its record is the dead pane's, or none.
func (l sight) launching() bool { return !l.seen && l.launched < launchGrace }

// look gathers what decide needs of a worker's pane. A pane id that is not the worker's
// any more is dropped from its record first. A death noted of the pane is taken only
// once no launch is awaited: until then it waits.
func (s *Supervisor) look(ctx context.Context, w *wire.Worker, rt *runtime) sight {
	rec, _, listed := s.Pane(w.PaneID)
	if w.PaneID != "" && !s.owns(ctx, w) {
		// Pane ids restart at %0 with a new tmux server: this id is someone else's
		// pane now, never to be replaced, pressed or killed as the worker's. Its own
		// is gone with the old server: no launch of this daemon's is on its way.
		w.PaneID, w.Server, rec, listed = "", "", wire.Pane{}, false
		rt.seen = true
	}
	if listed && rec.PID == w.PID {
		rt.seen = true
	}
	l := sight{rec: rec, listed: listed, seen: rt.seen, launched: s.now().Sub(rt.since)}
	if listed && rec.State == string(state.Exited) {
		l.exited = max(s.now().Sub(rec.Since), time.Nanosecond)
	}
	if !l.launching() {
		l.suspected = s.phases.died(w.PaneID)
	}
	return l
}

// decide says what a reconcile does with a worker, from its record and what look saw of
// its pane; it changes nothing.
func decide(w wire.Worker, l sight) step {
	if l.launching() {
		return stepWait
	}
	down := w.Status == string(Failed) || (w.Status == string(Offline) && !w.RestartDue)
	readOffline := l.listed && l.rec.State == string(state.Offline)
	switch {
	case down && (!l.listed || readOffline):
		return stepLeaveDown
	case w.PaneID == "" || !l.listed:
		return stepLost
	case readOffline || l.suspected:
		return stepCheckDead
	case w.Status == string(Offline) && l.rec.PID == w.PID:
		// Its death is known (its process watch, tmux), and the watcher, which learns of
		// a dead pane from its list every few seconds, has not caught up; or its agent
		// exited and the process lingers: either counts once.
		if w.RestartDue {
			return stepRestart
		}
		return stepLeaveDown
	case l.exited >= exitedGrace && l.rec.PID == w.PID && w.Status != string(Failed):
		return stepExited
	}
	return stepAlive
}

// restartIfDue restarts a worker its policy made due for one.
func (s *Supervisor) restartIfDue(ctx context.Context, w *wire.Worker, rt *runtime) {
	if w.RestartDue {
		s.restart(ctx, w, rt, false)
	}
}

// dead takes a pane the watcher reads OFFLINE, or one suspected dead (its process ended,
// or a pane-died hook named it), to tmux: false while it is alive after all (respawned,
// or tmux has not noticed the death yet) or tmux has not reaped its process (its exit
// status decides the policy). Those are asked again, 100 ms apart, deadChecks times.
func (s *Supervisor) dead(ctx context.Context, w *wire.Worker, rt *runtime, suspected bool) bool {
	status, err := s.deadStatus(ctx, w.PaneID)
	alive := errors.Is(err, errAlive)
	s.Log.Debug().Str("worker", w.Name).Str("pane", w.PaneID).Bool("suspected", suspected).Bool("alive", alive).
		Int("status", status).Int("check", rt.deadChecks).Msg("is it dead?")
	if (alive && suspected) || (err == nil && status < 0) {
		if rt.deadChecks < deadChecks {
			rt.deadChecks++
			paneID := w.PaneID
			time.AfterFunc(100*time.Millisecond, func() { s.Died(paneID) })
			return false
		}
	}
	rt.deadChecks = 0
	if alive {
		return false
	}
	kind, why := death(status)
	s.lost(w, rt, kind, why, status)
	return true
}

// alive updates a worker whose pane lives, re-binding it if tmux moved it.
func (s *Supervisor) alive(ctx context.Context, w *wire.Worker, rt *runtime, rec wire.Pane) {
	now := s.now()
	w.Heartbeat, w.RestartDue = now, false
	w.Server = s.live // owns checked it, or the record predates servers and the process is its own
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
	s.watchExit(ctx, w, rt)
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
		s.event(w, "ready", fmt.Sprintf("READY %s after it started", now.Sub(w.Started).Round(time.Millisecond)))
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
	s.handoffDue(ctx, w, rt, rec)
	s.healthDue(ctx, w, rt, rec)
}

// watchExit has the worker's process watched (proc.Exited), so its death is news at
// once, whatever tmux's hooks and lists do, until ctx ends. Under s.mu.
func (s *Supervisor) watchExit(ctx context.Context, w *wire.Worker, rt *runtime) {
	if w.PID == 0 || rt.watched == w.PID {
		return
	}
	if rt.unwatch != nil {
		rt.unwatch()
	}
	ctx, cancel := context.WithCancel(ctx)
	rt.watched, rt.unwatch = w.PID, cancel
	paneID, exited := w.PaneID, proc.Exited(ctx, w.PID)
	go func() {
		select {
		case <-exited:
			s.Died(paneID)
		case <-ctx.Done():
		}
	}()
}

// drift records a record that no longer matched tmux.
func (s *Supervisor) drift(w *wire.Worker, kind, detail string) {
	w.Why = "REGISTRY_DRIFT: " + detail
	s.event(w, "drift", w.Why)
	if s.Metrics != nil {
		s.Metrics.Drift(kind)
	}
}

// lost handles a worker whose pane died (status: its exit status, -1 unknown) or
// vanished: offline, and due for a restart if its policy says so and it is not crashing
// in a loop. A process that ends within resumeGrace of its start counts as a failure
// whatever its status (a command that exits at once under --restart always would loop),
// and pushes the next launch further off.
func (s *Supervisor) lost(w *wire.Worker, rt *runtime, kind, why string, status int) {
	if w.Status == string(Failed) || w.Status == string(Offline) {
		return
	}
	cfg := s.config()
	now := s.now()
	w.Status, w.Why, rt.down = string(Offline), why, kind
	young := now.Sub(w.Started) < resumeGrace
	failure := status != 0 || young
	if failure {
		w.Failures = append(recent(w.Failures, now, cfg.CrashWindow), now)
	}
	rt.backoff = nextBackoff(rt.backoff, young)
	rt.notBefore = now.Add(rt.backoff)
	s.event(w, "offline", why)
	switch {
	case len(recent(w.Failures, now, cfg.CrashWindow)) >= cfg.CrashLimit:
		s.fail(w, fmt.Sprintf("it failed %d times within %s (last: %s)", len(w.Failures), cfg.CrashWindow, why))
	case restartable(w.Restart, failure):
		w.RestartDue = true
	default:
		s.event(w, "not-restarted", "restart policy "+w.Restart+"; paneherd workers continue "+w.Name+" starts it")
	}
}

// nextBackoff is the wait before the next launch: none after a worker that lived, else
// doubling from a second up to a minute.
func nextBackoff(last time.Duration, young bool) time.Duration {
	if !young {
		return 0
	}
	return min(max(2*last, time.Second), time.Minute)
}

// restart launches the worker again, with its resume command unless fresh is asked, it
// has none, or its last resume died young (there was nothing to continue). One that
// tmux refused stays due, and is tried again after the backoff. rt.down says why, for
// the metrics.
func (s *Supervisor) restart(ctx context.Context, w *wire.Worker, rt *runtime, fresh bool) {
	now := s.now()
	if now.Before(rt.notBefore) {
		time.AfterFunc(rt.notBefore.Sub(now), s.Poke)
		return
	}
	cmd := w.Command
	if !fresh && w.Resume != "" && !resumeDiedYoung(w, rt, now) {
		cmd = w.Resume
	}
	why := w.Why
	if err := s.launch(ctx, w, cmd); err != nil {
		w.RestartDue = true
		rt.backoff = nextBackoff(rt.backoff, true)
		rt.notBefore = now.Add(rt.backoff)
		s.event(w, "restart-failed", err.Error())
		return
	}
	w.RestartDue, rt.seen, rt.deadChecks = false, false, 0
	rt.since, rt.resumed = now, cmd == w.Resume && cmd != w.Command
	rt.nudges, rt.escalated = 0, false
	w.Restarts++
	w.Status = string(Starting)
	s.event(w, "restarted", fmt.Sprintf("%s; ran %s (restart %d)", why, cmd, w.Restarts))
	if s.Metrics != nil {
		s.Metrics.Restart(w.Name, cmp.Or(rt.down, "other"))
	}
	if s.Wake != nil {
		s.Wake() // the watcher lists panes again soon, and sees the new process
	}
}

// resumeDiedYoung: the last launch was the resume command and it ended within
// resumeGrace: there was no conversation to continue (claude --continue exits 1 then).
func resumeDiedYoung(w *wire.Worker, rt *runtime, now time.Time) bool {
	return rt.resumed && now.Sub(w.Started) < resumeGrace
}

// fail gives up on a worker until a person says so, and tells them.
func (s *Supervisor) fail(w *wire.Worker, why string) {
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

// death words a dead pane's end, and its kind for the metrics.
func death(status int) (kind, why string) {
	if status < 0 {
		return "died", "its process died (killed, or exit status unknown)"
	}
	return "exited", fmt.Sprintf("its process exited with status %d", status)
}

// activeSessions are the sessions where a person typed within the quiet window, asked
// of tmux at most once a second: pokes come with every transition of every pane.
func (s *Supervisor) activeSessions(ctx context.Context) map[string]bool {
	now := s.now()
	if len(s.workers) == 0 || now.Sub(s.clientsAt) < time.Second {
		return s.active
	}
	s.clientsAt, s.active = now, map[string]bool{}
	clients, err := s.Server.Clients(ctx)
	if err != nil {
		return s.active
	}
	for _, c := range clients {
		if !c.Control && now.Sub(c.Activity) < s.config().Quiet {
			s.active[c.Session] = true
		}
	}
	return s.active
}

func (s *Supervisor) names() []string {
	names := make([]string, 0, len(s.workers))
	for n := range s.workers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// managedPanes are the managed workers' panes. Under s.mu.
func (s *Supervisor) managedPanes() map[string]bool {
	m := make(map[string]bool, len(s.workers))
	for _, w := range s.workers {
		m[w.PaneID] = true
	}
	return m
}

// sameRecord: nothing worth storing changed (the heartbeat alone is not).
func sameRecord(a, b wire.Worker) bool {
	a.Heartbeat, b.Heartbeat = time.Time{}, time.Time{}
	return fmt.Sprint(a) == fmt.Sprint(b)
}
