//go:build linux

package supervisor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc/proctest"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
)

// TestRetireEndsWhatADeadPaneLeft: a worker's program backgrounds a job that ignores the
// hangup (no session of its own) and exits; its pane is dead (remain-on-exit) when the
// worker is retired, and the job, left in the pane's session, is ended.
func TestRetireEndsWhatADeadPaneLeft(t *testing.T) {
	h := tmuxtest.New(t)
	reaper := proctest.NewReaper(t)
	jobFile := filepath.Join(t.TempDir(), "job")
	h.NewSession("person", "exec sleep 100000") // the server's last pane is never the worker's
	pane := h.NewSession("agents_api", "exec sleep 100000")
	h.Run("set-option", "-w", "-t", pane, "remain-on-exit", "on")
	// The hangup ignored before the job starts: the shell's exit sends one at once.
	h.Run("respawn-pane", "-k", "-t", pane, "trap '' HUP; sleep 1000 </dev/null >/dev/null 2>&1 & echo $! >"+jobFile+"; exit 0")
	var job int
	tmuxtest.WaitFor(t, 10*time.Second, func() bool {
		b, _ := os.ReadFile(jobFile)
		job, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return job > 0
	})
	reaper.Add(job)
	tmuxtest.WaitFor(t, 10*time.Second, func() bool { return h.Run("display-message", "-p", "-t", pane, "#{pane_dead}") == "1" })
	if !proctest.Running(job) {
		t.Fatalf("the job %d did not outlive the pane's process", job)
	}

	s := newTmuxSupervisor(t, h)
	s.workers["api"] = &wire.Worker{Name: "api", PaneID: pane, Server: h.Run("display-message", "-p", tmux.ServerFormat),
		Session: "agents_api", Window: "api", Status: string(Failed), Restart: Never}
	s.run["api"] = &runtime{since: time.Now()}
	if _, err := s.Retire(t.Context(), "api"); err != nil {
		t.Fatalf("retire: %v", err)
	}
	if tmuxtest.Poll(time.Second, func() bool { return !proctest.Running(job) }); proctest.Running(job) {
		t.Errorf("the job %d the worker left runs on after retire", job)
	}
	events, err := s.Store.WorkerEvents("api", 0)
	if err != nil || len(events) == 0 || !strings.Contains(events[len(events)-1].Detail, "ended 1 processes it left") {
		t.Errorf("the retirement does not say it ended the job: %+v, %v", events, err)
	}
}

// TestRetireTheServersLastPane: closing the worker's pane may close the server's last
// session (and, with exit-empty on, the server): the pane is gone, and retire says so.
func TestRetireTheServersLastPane(t *testing.T) {
	for _, exitEmpty := range []string{"off", "on"} {
		t.Run("exit-empty "+exitEmpty, func(t *testing.T) {
			h := tmuxtest.New(t)
			pane := h.NewSession("agents_api", "exec sleep 100000")
			h.Run("set-option", "-s", "exit-empty", exitEmpty)
			s := newTmuxSupervisor(t, h)
			s.workers["api"] = &wire.Worker{Name: "api", PaneID: pane, Server: h.Run("display-message", "-p", tmux.ServerFormat),
				Session: "agents_api", Window: "api", Status: string(Ready), Restart: Never}
			s.run["api"] = &runtime{since: time.Now()}
			if _, err := s.Retire(t.Context(), "api"); err != nil {
				t.Fatalf("retire: %v", err)
			}
			if len(s.Workers()) != 0 {
				t.Errorf("the record stays: %+v", s.Workers())
			}
		})
	}
}
