package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/wire"
)

// Retire stops a worker for good: its pack's interrupt keys, up to RetireWait for its
// process to end, then its pane is killed; its record goes, its history stays. The lock
// is held throughout, so no reconcile restarts the worker as it quits. It goes on when
// the asker hangs up (a half-retired worker would run unmanaged), and the record is
// removed only once tmux has said the pane is gone.
func (s *Supervisor) Retire(ctx context.Context, name string) (wire.Worker, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.config().RetireWait+10*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.workers[name]
	if w == nil {
		return wire.Worker{}, s.unknown(name)
	}
	how, err := s.stop(ctx, w)
	if err != nil {
		s.event(w, "retire-failed", how+": "+err.Error())
		return *w, fmt.Errorf("retire: %s may still run (%s): %w; its record stays", name, how, err)
	}
	if err := s.Store.DeleteWorker(name); err != nil {
		return *w, fmt.Errorf("retire: %s stopped, but its record stays: %w", name, err)
	}
	if rt := s.run[name]; rt.unwatch != nil {
		rt.unwatch()
	}
	delete(s.workers, name)
	delete(s.run, name)
	s.event(w, "retired", how)
	s.publish()
	return *w, nil
}

// stop ends the worker's process and closes its pane, and says how; an error when tmux
// could not say the pane is gone.
func (s *Supervisor) stop(ctx context.Context, w *wire.Worker) (string, error) {
	if err := s.learnServer(ctx); err != nil {
		return "nothing done", err
	}
	if !s.owns(ctx, w) {
		return "its pane was gone already", nil
	}
	there, err := s.paneExists(ctx, w.PaneID)
	if err != nil || !there {
		return "its pane was gone already", err
	}
	// Held before the interrupt: once the CLI quits, what it started in sessions of its
	// own (Codex's app-server) is no longer below it.
	held := s.holdProcesses(ctx, w.PaneID)
	how := "no interrupt keys"
	if _, pack, _ := s.Pane(w.PaneID); pack != nil && len(pack.Actions.Interrupt) > 0 {
		res := s.Press(ctx, deliver.PressRequest{ID: newID(), PaneID: w.PaneID, Keys: pack.Actions.Interrupt,
			Kind: "interrupt", Reason: "retire", Gap: keyGap})
		how = fmt.Sprintf("pressed %s (%s)", strings.Join(pack.Actions.Interrupt, " "), res.Outcome)
		if s.quits(ctx, w.PaneID) {
			how += "; it quit"
		} else {
			how += fmt.Sprintf("; still running after %s", s.config().RetireWait)
		}
	}
	_, killErr := s.Server.Run(ctx, nil, "kill-pane", "-t", w.PaneID)
	if there, err := s.paneExists(ctx, w.PaneID); err != nil || there {
		held.Release()
		return how, errors.Join(killErr, err, errors.New("the pane is still there"))
	}
	how += "; pane closed"
	if n := held.End(leftoverGrace); n > 0 {
		how += fmt.Sprintf("; ended %d processes it left", n)
	}
	return how, nil
}

// leftoverGrace is how long a retired worker's leftover processes get to end on SIGTERM,
// and then to die on SIGKILL.
const leftoverGrace = 2 * time.Second

// holdProcesses holds the pane's process, what runs below it and in its terminal's
// session, to end what is left of them once the pane is closed; when its process has
// exited already (a dead pane), what is left of its session. The pid is tmux's of the
// moment, not the record's, which a respawn by hand leaves stale until the next
// reconcile: a stale pid may be someone else's now.
func (s *Supervisor) holdProcesses(ctx context.Context, paneID string) *proc.Held {
	pid, alive, err := s.paneProcess(ctx, paneID)
	if err == nil && alive {
		held, err := proc.HoldTree(pid, func() bool {
			now, alive, err := s.paneProcess(ctx, paneID)
			return err == nil && alive && now == pid
		})
		if err == nil {
			return held
		}
		pid, alive, err = s.paneProcess(ctx, paneID) // it may have exited meanwhile
	}
	if err != nil || alive {
		return nil
	}
	held, _ := proc.HoldSession(pid) // tmux ran the pane's process as a session's leader
	return held
}

// owns reports whether the worker's pane id names its pane on the live server (s.live,
// asked of tmux by the caller): pane ids restart at %0 with a new tmux server, and the
// new server's %3 is someone else's, however the watcher's records (restored from the
// store at start) still describe the old one. A record from before servers were noted
// is trusted only while the pane runs the process the record names. Under s.mu.
func (s *Supervisor) owns(ctx context.Context, w *wire.Worker) bool {
	switch {
	case w.PaneID == "" || s.live == "":
		return false
	case w.Server != "":
		return w.Server == s.live
	}
	pid, _, err := s.paneProcess(ctx, w.PaneID)
	return err == nil && pid != 0 && pid == w.PID
}

// quits waits up to RetireWait for the pane's process to end (the pane dead, or gone).
func (s *Supervisor) quits(ctx context.Context, id string) bool {
	deadline := time.Now().Add(s.config().RetireWait)
	for {
		_, err := s.deadStatus(ctx, id)
		if there, lerr := s.paneExists(ctx, id); err == nil || (lerr == nil && !there) {
			return true
		}
		if time.Now().After(deadline) || deliver.Sleep(ctx, 100*time.Millisecond) != nil {
			return false
		}
	}
}

// Continue is a person saying go on: a failed worker is restarted, paused health prompts
// resume, a frozen worker is watched anew.
func (s *Supervisor) Continue(ctx context.Context, name string) (wire.Worker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, rt := s.workers[name], s.run[name]
	if w == nil {
		return wire.Worker{}, s.unknown(name)
	}
	var did []string
	switch w.Status {
	case string(Failed):
		w.Failures, w.Status = nil, string(Offline)
		w.RestartDue = true
		did = append(did, "restarting it")
	case string(Offline):
		w.RestartDue = true // stopped by its policy, or waiting out a backoff
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
	if w.RestartDue {
		w.Why, rt.down, rt.backoff, rt.notBefore = "a person continued it", "continued", 0, time.Time{}
		s.restart(ctx, w, rt, false)
	}
	s.save(w)
	return *w, nil
}

func (s *Supervisor) unknown(name string) error {
	return wire.NoWorker(name, s.names())
}
