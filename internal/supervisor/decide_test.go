package supervisor

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// TestDecide: what a reconcile does with a worker, from its record and what is seen of
// its pane.
func TestDecide(t *testing.T) {
	const pid = 100
	worker := func(status Status, restartDue bool) wire.Worker {
		return wire.Worker{Name: "api", PaneID: "%1", PID: pid, Status: string(status), RestartDue: restartDue}
	}
	pane := func(st state.State, pid int) wire.Pane { return wire.Pane{ID: "%1", State: string(st), PID: pid} }
	listed := func(st state.State, pid int) sight {
		return sight{rec: pane(st, pid), listed: true, seen: true, launched: time.Hour}
	}
	exited := func(d time.Duration) sight {
		l := listed(state.Exited, pid)
		l.exited = d
		return l
	}
	suspected := listed(state.Busy, pid)
	suspected.suspected = true
	disowned := worker(Ready, false)
	disowned.PaneID = ""
	for _, tt := range []struct {
		name string
		w    wire.Worker
		l    sight
		want step
	}{
		{"launched moments ago, not listed yet", worker(Starting, false), sight{launched: time.Second}, stepWait},
		{"launched moments ago, the dead pane's record listed", worker(Starting, false),
			sight{rec: pane(state.Offline, pid-1), listed: true, launched: time.Second}, stepWait},
		{"launch overdue and its pane not listed", worker(Starting, false), sight{launched: launchGrace}, stepLost},
		{"alive", worker(Ready, false), listed(state.Ready, pid), stepAlive},
		{"read OFFLINE", worker(Ready, false), listed(state.Offline, pid), stepCheckDead},
		{"suspected dead while read alive", worker(Triggering, false), suspected, stepCheckDead},
		{"pane gone", worker(Ready, false), sight{seen: true, launched: time.Hour}, stepLost},
		{"pane id dropped as someone else's", disowned, sight{seen: true, launched: time.Hour}, stepLost},
		{"failed, pane gone", worker(Failed, false), sight{seen: true, launched: time.Hour}, stepLeaveDown},
		{"failed, pane read OFFLINE", worker(Failed, false), listed(state.Offline, pid), stepLeaveDown},
		{"failed, pane alive: followed, never restarted", worker(Failed, false), listed(state.Ready, pid), stepAlive},
		{"offline by policy, pane gone", worker(Offline, false), sight{seen: true, launched: time.Hour}, stepLeaveDown},
		{"offline by policy, watcher not caught up", worker(Offline, false), listed(state.Ready, pid), stepLeaveDown},
		{"restart due, pane gone", worker(Offline, true), sight{seen: true, launched: time.Hour}, stepLost},
		{"restart due, pane read OFFLINE", worker(Offline, true), listed(state.Offline, pid), stepCheckDead},
		{"restart due, watcher not caught up", worker(Offline, true), listed(state.Ready, pid), stepRestart},
		{"restart due, a new process in its pane", worker(Offline, true), listed(state.Ready, pid+1), stepAlive},
		{"its agent exited, its process lingering", worker(Ready, false), exited(exitedGrace), stepExited},
		{"one frame read EXITED: not yet", worker(Ready, false), exited(exitedGrace - time.Millisecond), stepAlive},
		{"exited and left down by its policy", worker(Offline, false), listed(state.Exited, pid), stepLeaveDown},
		{"exited, restart due", worker(Offline, true), listed(state.Exited, pid), stepRestart},
		{"failed, its agent exited: followed, never restarted", worker(Failed, false), listed(state.Exited, pid), stepAlive},
		{"a new process in its pane exited", worker(Ready, false), listed(state.Exited, pid+1), stepAlive},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := decide(tt.w, tt.l); got != tt.want {
				t.Errorf("decide = %s, want %s", stepNames[got], stepNames[tt.want])
			}
		})
	}
}

var stepNames = map[step]string{stepWait: "wait", stepLeaveDown: "leave down", stepLost: "lost",
	stepCheckDead: "check dead", stepExited: "exited", stepRestart: "restart", stepAlive: "alive"}
