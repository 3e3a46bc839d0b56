package herd

import (
	"time"

	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/store"
)

// PaneStatus is one pane as `status --json` and the MCP server show it: the public
// shape, kept apart from the database record so the record can grow without changing
// what scripts and orchestrators read.
type PaneStatus struct {
	PaneID string `json:"pane_id"`
	// Host is the machine the pane is on (@paneherd-hosts); "" for this server's.
	Host        string `json:"host"`
	Session     string `json:"session"`
	Window      string `json:"window"`
	WindowIndex int    `json:"window_index"`
	PaneIndex   int    `json:"pane_index"`
	Name        string `json:"name"`
	Pack        string `json:"pack"`
	State       string `json:"state"`
	Rule        string `json:"rule"` // the pack's rule (or the watcher's, or hook:AGENT:EVENT) that set the state
	// Witness is who holds the state now: "screen" (the pack's reading) or "hook" (an
	// agent hook's event the screen has not confirmed yet).
	Witness string    `json:"witness"`
	Summary string    `json:"summary"`
	Since   time.Time `json:"since"`
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	CWD     string    `json:"cwd"`
	// Worker is the supervisor's record when the pane is a managed worker's
	// (paneherd create): runtime status, restarts, heartbeat, last trigger.
	Worker *store.Worker `json:"worker,omitempty"`
}

// StatusOf is the panes in their public shape, each with its managed worker's record.
func StatusOf(panes []store.Pane, workers []store.Worker) []PaneStatus {
	out := make([]PaneStatus, 0, len(panes))
	for _, p := range panes {
		var worker *store.Worker
		if p.Host == "" {
			worker = managed(workers, p.ID) // the registry is this server's
		}
		out = append(out, PaneStatus{p.ID, p.Host, p.Session, p.Window, p.WindowIndex, p.PaneIndex,
			p.Name, p.Pack, p.State, p.Rule, witness(p), p.Summary, p.Since, p.Command, p.PID, p.CWD, worker})
	}
	return out
}

// Status is every pane the daemon last published, in its public shape.
func (d Daemon) Status() ([]PaneStatus, error) {
	snap, err := d.Snapshot()
	if err != nil {
		return nil, err
	}
	workers, _ := d.Workers() // a registry being rewritten is missed once, not an error
	return StatusOf(snap.Panes, workers), nil
}

// managed is the worker whose pane it is, if any.
func managed(workers []store.Worker, paneID string) *store.Worker {
	for i := range workers {
		if workers[i].PaneID == paneID {
			return &workers[i]
		}
	}
	return nil
}

// witness is who holds the pane's state; a record from before hooks were witnesses was
// the screen's.
func witness(p store.Pane) string {
	if p.Witness == "" {
		return tracker.WitnessScreen
	}
	return p.Witness
}
