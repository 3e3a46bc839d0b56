package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/store"
)

// sendAsk is what the CLI asks the daemon to send.
type sendAsk struct {
	deliver.SendRequest
	Queue bool `json:"queue,omitempty"` // not READY: keep it until the pane is
}

// newEngine builds the daemon's delivery engine: panes as the watcher sees them, the
// audit in the store.
func (d *daemonRun) newEngine() *deliver.Engine {
	e := deliver.New(d.server, deliver.DefaultConfig)
	e.Log = d.log.Logger
	e.Lookup = func(id string) (deliver.Pane, bool) {
		rec, pack, ok := d.w.Pane(id)
		return deliver.Pane{ID: rec.ID, Name: rec.Name, State: state.State(rec.State), Pack: pack}, ok
	}
	e.Audit = func(t store.Trigger) {
		if err := d.store.AddTrigger(t); err != nil {
			d.log.Warn().Err(err).Msg("record trigger")
		}
	}
	return e
}

// send answers a send question: deliver now, or queue when asked and the pane is busy.
func (d *daemonRun) send(ctx context.Context, body json.RawMessage) (any, error) {
	var ask sendAsk
	if err := json.Unmarshal(body, &ask); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	if ask.Queue {
		if rec, _, ok := d.w.Pane(ask.PaneID); ok && rec.State != string(state.Ready) {
			return d.enqueue(ask)
		}
	}
	return d.engine.Send(ctx, ask.SendRequest), nil
}

func (d *daemonRun) enqueue(ask sendAsk) (deliver.Result, error) {
	if _, err := deliver.Sanitize(ask.Text); err != nil {
		return deliver.Result{ID: ask.ID, PaneID: ask.PaneID, Outcome: deliver.SendKeysError, Detail: err.Error()}, nil
	}
	q := store.Queued{ID: ask.ID, PaneID: ask.PaneID, Text: ask.Text, At: time.Now(), Forced: ask.Force, Reason: ask.Reason}
	if err := d.store.Enqueue(q); err != nil {
		return deliver.Result{}, err
	}
	d.log.Info().Str("id", q.ID).Str("pane", q.PaneID).Msg("prompt queued")
	return deliver.Result{ID: ask.ID, PaneID: ask.PaneID, Outcome: deliver.Queued,
		Detail: "delivered when the pane is next READY"}, nil
}

// answerDialog answers an approve or deny question.
func (d *daemonRun) answerDialog(ctx context.Context, body json.RawMessage) (any, error) {
	var req deliver.AnswerRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}
	return d.engine.Answer(ctx, req), nil
}

// queueSweep is how often queued prompts are looked at besides READY transitions: a
// daemon that restarts finds its READY panes without a transition.
const queueSweep = 3 * time.Second

// deliverQueued sends queued prompts to their panes once those are READY, oldest first,
// one at a time. A pane that is gone, dead or refuses for good drops its prompt; one
// that is busy again, or has a person at it, keeps it for later.
func (d *daemonRun) deliverQueued(ctx context.Context, ready <-chan string) {
	t := time.NewTicker(queueSweep)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ready:
		case <-t.C:
		}
		d.drainQueue(ctx)
	}
}

func (d *daemonRun) drainQueue(ctx context.Context) {
	queue, err := d.store.Queue()
	if err != nil {
		d.log.Warn().Err(err).Msg("read queue")
		return
	}
	tried := map[string]bool{}
	for _, q := range queue {
		rec, _, ok := d.w.Pane(q.PaneID)
		if tried[q.PaneID] || (ok && rec.State != string(state.Ready)) {
			continue
		}
		tried[q.PaneID] = true
		res := d.engine.Send(ctx, deliver.SendRequest{ID: q.ID, PaneID: q.PaneID, Text: q.Text, Force: q.Forced, Reason: q.Reason})
		if keepQueued(res.Outcome) {
			continue
		}
		if err := d.store.Dequeue(q.ID); err != nil {
			d.log.Warn().Err(err).Msg("dequeue")
		}
	}
}

// keepQueued: outcomes after which a queued prompt waits for another chance.
func keepQueued(o deliver.Outcome) bool {
	switch o {
	case deliver.NotReady, deliver.OperatorBusy, deliver.DeferTimeout, deliver.TriggerRateLimited:
		return true
	}
	return false
}
