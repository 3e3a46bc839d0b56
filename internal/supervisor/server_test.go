package supervisor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// newServerRig is a supervisor on a real private tmux server whose watcher still holds
// the records a daemon restores from the store after the old server died: the worker's
// pane id, the old server's identity, the old process, READY. The live server's pane
// of that id runs a person's program.
func newServerRig(t *testing.T, w wire.Worker) (*Supervisor, *tmuxtest.Handle, string) {
	h := tmuxtest.New(t)
	h.NewSession("new", "exec sleep 100000")
	victim := h.NewWindow("new", "victim", "exec sleep 100000")
	s := newTmuxSupervisor(t, h)
	stale := wire.Pane{ID: victim, Server: w.Server, PID: w.PID, State: "READY"}
	if w.Server == "" {
		stale.Server = "1:1700000000"
	}
	s.Pane = func(id string) (wire.Pane, *packs.Pack, bool) {
		if id == victim {
			return stale, nil, true
		}
		return wire.Pane{}, nil, false
	}
	w.PaneID, w.Session, w.Window, w.Workspace = victim, "agents_api", "api", t.TempDir()
	w.Command, w.Restart, w.Status = "exec sleep 100000", Always, string(Offline)
	w.RestartDue, w.Started = true, time.Now().Add(-time.Hour)
	s.workers[w.Name] = &w
	s.run[w.Name] = &runtime{since: time.Now()}
	return s, h, victim
}

// newTmuxSupervisor is a supervisor on the private tmux server h, with a store of its
// own and no worker; it knows no pane, and a key it presses fails the test.
func newTmuxSupervisor(t *testing.T, h *tmuxtest.Handle) *Supervisor {
	st, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(DefaultConfig)
	s.Server, s.Store, s.Packs = h.Server, st, packs.Load("")
	s.Pane = func(id string) (wire.Pane, *packs.Pack, bool) { return wire.Pane{}, nil, false }
	s.Press = func(ctx context.Context, req deliver.PressRequest) wire.Result {
		t.Errorf("keys pressed at %s: %v", req.PaneID, req.Keys)
		return wire.Result{}
	}
	return s
}

// TestAWorkersPaneIDOnANewServerIsSomeoneElses: a worker due for a restart whose record
// names %1 of a server that died is started in a window of its own; the new server's %1
// keeps its process. Both with the old server noted in the record and without (a record
// made before its first reconcile).
func TestAWorkersPaneIDOnANewServerIsSomeoneElses(t *testing.T) {
	for _, c := range []struct{ name, server string }{
		{"server noted", "1:1700000000"},
		{"server not noted yet", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, h, victim := newServerRig(t, wire.Worker{Name: "api", Server: c.server, PID: 999999})
			before := h.Run("display-message", "-p", "-t", victim, "#{pane_pid}")
			s.Reconcile(t.Context())
			if now := h.Run("display-message", "-p", "-t", victim, "#{pane_pid} #{@paneherd-name}"); now != before+" " {
				t.Errorf("the person's pane %s: %q (pid, name), was pid %s", victim, now, before)
			}
			w := s.Workers()[0]
			live := h.Run("display-message", "-p", "#{pid}:#{start_time}")
			if w.PaneID == "" || w.PaneID == victim || w.Server != live || w.Restarts != 1 {
				t.Errorf("worker in pane %s of server %s after %d restarts; want a new pane of %s, 1 restart", w.PaneID, w.Server, w.Restarts, live)
			}
			if got := h.Run("display-message", "-p", "-t", w.PaneID, "#{session_name}:#{window_name} #{@paneherd-name}"); got != "agents_api:api api" {
				t.Errorf("the worker's new pane is %q", got)
			}
		})
	}
}

// TestRetireKillsNoPaneOfANewServer: retiring a worker whose pane died with its server
// closes nothing of the new server's.
func TestRetireKillsNoPaneOfANewServer(t *testing.T) {
	s, h, victim := newServerRig(t, wire.Worker{Name: "api", Server: "1:1700000000", PID: 999999})
	s.workers["api"].Status, s.workers["api"].RestartDue = string(Ready), false
	if _, err := s.Retire(t.Context(), "api"); err != nil {
		t.Fatalf("retire: %v", err)
	}
	if panes := h.Run("list-panes", "-a", "-F", "#{pane_id}"); panes != "%0\n"+victim {
		t.Errorf("panes after retire: %q", panes)
	}
}
