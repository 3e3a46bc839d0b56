package herd

import (
	"context"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// Workers is the supervisor's registry as the daemon last published it.
func (d Daemon) Workers() ([]wire.Worker, error) {
	pid, err := d.holder()
	if err != nil {
		return nil, err
	}
	if pid == 0 {
		return nil, d.noDaemon()
	}
	r, err := wire.ReadRegistry(d.Dir.Workers())
	return r.Workers, err
}

// Worker finds a managed worker by name.
func (d Daemon) Worker(name string) (wire.Worker, error) {
	ws, err := d.Workers()
	if err != nil {
		return wire.Worker{}, err
	}
	var names []string
	for _, w := range ws {
		if w.Name == name {
			return w, nil
		}
		names = append(names, w.Name)
	}
	return wire.Worker{}, wire.NoWorker(name, names)
}

// Create asks the daemon to start a worker (it checks everything first: a refusal leaves
// nothing behind) and returns it as registered, starting.
func (d Daemon) Create(ctx context.Context, ask wire.CreateAsk) (wire.Worker, error) {
	return call[wire.Worker](ctx, d, wire.Request{Op: wire.OpCreate}, ask)
}

// Retire asks the daemon to stop a worker for good (interrupt, wait, kill its pane)
// and forget it; its history stays.
func (d Daemon) Retire(ctx context.Context, name string) (wire.Worker, error) {
	return call[wire.Worker](ctx, d, wire.Request{Op: wire.OpRetire}, wire.WorkerAsk{Name: name})
}

// Continue is a person saying go on to a worker the supervisor gave up on.
func (d Daemon) Continue(ctx context.Context, name string) (wire.Worker, error) {
	return call[wire.Worker](ctx, d, wire.Request{Op: wire.OpContinue}, wire.WorkerAsk{Name: name})
}

// Started waits until a pane the daemon just started is READY, within timeout, and
// says how the wait ended: reached; needs-confirmation when it asks something first (a
// trust dialog) and crashed when it failed or died, since it will not get READY alone.
// A pane the daemon has not listed yet is waited for.
func (d Daemon) Started(ctx context.Context, paneID string, timeout time.Duration) (wire.WaitResult, error) {
	return d.follow(ctx, &paneID, "", time.Now(), timeout, func(p wire.Pane) wire.WaitResult {
		if p.ID == "" {
			return wire.WaitResult{PaneID: paneID, Summary: "the daemon has not seen the pane yet"}
		}
		return resultOf(startedOutcome(state.State(p.State)), p)
	})
}

func startedOutcome(st state.State) outcome.Outcome {
	switch st {
	case state.Ready:
		return outcome.Reached
	case state.NeedsConfirmation:
		return outcome.NeedsConfirmation
	case state.Error, state.Exited, state.Offline:
		return outcome.Crashed
	}
	return ""
}

// Launch starts a worker (Create), waits until it is READY (Started, within timeout),
// then sends prompt, if any, the way `send` does; one that is not READY in time gets it
// queued for when it is. `paneherd create` and the MCP server's create both run this.
func (d Daemon) Launch(ctx context.Context, ask wire.CreateAsk, prompt string, timeout time.Duration) (wire.Created, error) {
	var c wire.Created
	var err error
	if c.Worker, err = d.Create(ctx, ask); err != nil {
		return c, err
	}
	if c.Started, err = d.Started(ctx, c.Worker.PaneID, timeout); err != nil || prompt == "" {
		return c, err
	}
	res, err := d.Send(ctx, wire.SendAsk{SendRequest: wire.SendRequest{ID: NewTriggerID(), PaneID: c.Worker.PaneID, Text: prompt},
		Queue: c.Started.FinalState != outcome.Reached})
	c.Prompt = &res
	return c, err
}
