package herd

import (
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
)

// StatusOf is the panes in their public shape, each with its managed worker's record.
func StatusOf(panes []wire.Pane, workers []wire.Worker) []wire.PaneStatus {
	out := make([]wire.PaneStatus, 0, len(panes))
	for _, p := range panes {
		var worker *wire.Worker
		if p.Host == "" {
			worker = managed(workers, p.ID) // the registry is this server's
		}
		out = append(out, wire.PaneStatus{PaneID: p.ID, Host: p.Host, Session: p.Session, Window: p.Window, WindowIndex: p.WindowIndex,
			PaneIndex: p.PaneIndex, Name: p.Name, Pack: p.Pack, State: p.State, Rule: p.Rule, Witness: witness(p),
			Summary: p.Summary, Since: p.Since, Command: p.Command, PID: p.PID, CWD: p.CWD, Context: contextOf(p), Worker: worker})
	}
	return out
}

// contextOf is the pane's context when its agent told it, else nil (left out).
func contextOf(p wire.Pane) *wire.Context {
	if !p.Context.Known() {
		return nil
	}
	c := p.Context
	return &c
}

// Status is every pane of this server the daemon last published, in its public shape.
func (d Daemon) Status() ([]wire.PaneStatus, error) { return d.status(false) }

// StatusAll is Status, then the panes of the fleet's hosts (@paneherd-hosts) as last
// heard, each with its host: what status --json and list_workers list.
func (d Daemon) StatusAll() ([]wire.PaneStatus, error) { return d.status(true) }

func (d Daemon) status(withFleet bool) ([]wire.PaneStatus, error) {
	snap, err := d.Snapshot()
	if err != nil {
		return nil, err
	}
	panes := snap.Panes
	if withFleet {
		panes = append(panes, snap.Remote...)
	}
	workers, _ := d.Workers() // a registry being rewritten is missed once, not an error
	return StatusOf(panes, workers), nil
}

// managed is the worker whose pane it is, if any.
func managed(workers []wire.Worker, paneID string) *wire.Worker {
	for i := range workers {
		if workers[i].PaneID == paneID {
			return &workers[i]
		}
	}
	return nil
}

// witness is who holds the pane's state; a record from before hooks were witnesses was
// the screen's.
func witness(p wire.Pane) string {
	if p.Witness == "" {
		return tracker.WitnessScreen
	}
	return p.Witness
}
