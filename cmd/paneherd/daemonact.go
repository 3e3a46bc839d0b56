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
	rec, _, ok := d.w.Pane(ask.PaneID)
	if ask.Queue && ok && rec.State != string(state.Ready) {
		return d.enqueue(ask, rec)
	}
	res := d.engine.Send(ctx, ask.SendRequest)
	if ask.Queue && ok && res.Outcome == deliver.NotReady {
		return d.enqueue(ask, rec) // it stopped being READY as we looked
	}
	return res, nil
}

func (d *daemonRun) enqueue(ask sendAsk, rec store.Pane) (deliver.Result, error) {
	text, err := deliver.Sanitize(ask.Text)
	if err != nil {
		return deliver.Result{ID: ask.ID, PaneID: ask.PaneID, Outcome: deliver.SendKeysError, Detail: err.Error()}, nil
	}
	q := store.Queued{ID: ask.ID, PaneID: ask.PaneID, Text: ask.Text, At: time.Now(), Forced: ask.Force,
		Reason: ask.Reason, Server: rec.Server}
	if err := d.store.Enqueue(q); err != nil {
		return deliver.Result{}, err
	}
	res := deliver.Result{ID: ask.ID, PaneID: ask.PaneID, Name: rec.Name, Outcome: deliver.Queued,
		Detail: "delivered when the pane is next READY"}
	d.store.AddTrigger(store.Trigger{ID: q.ID, Kind: "send", PaneID: q.PaneID, Name: rec.Name, At: q.At, Finished: q.At,
		SHA256: deliver.Digest(text), Length: len(text), Outcome: string(res.Outcome), Detail: res.Detail, Forced: q.Forced, Reason: q.Reason})
	return res, nil
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

// queueRetry spaces out attempts at a queued prompt whose pane keeps refusing (a person
// at it): each attempt is audited and counts against the pane's rate limit.
const queueRetry = 30 * time.Second

// drainQueue sends each READY pane its oldest queued prompt. A prompt leaves the queue
// before it is sent, and comes back if the pane refused it for now: a daemon dying in
// between loses a prompt rather than sending it twice.
func (d *daemonRun) drainQueue(ctx context.Context) {
	queue, err := d.store.Queue()
	if err != nil {
		d.log.Warn().Err(err).Msg("read queue")
		return
	}
	tried := map[string]bool{}
	for _, q := range queue {
		rec, _, ok := d.w.Pane(q.PaneID)
		if ok && q.Server != "" && rec.Server != "" && rec.Server != q.Server {
			ok = false // the id now names a pane of a newer tmux server
		}
		switch {
		case tried[q.PaneID] || time.Since(q.LastTry) < queueRetry:
			continue
		case !ok:
			d.dropQueued(q, "the pane is gone")
			continue
		case rec.State != string(state.Ready):
			continue
		}
		tried[q.PaneID] = true
		d.store.Dequeue(q.ID)
		res := d.engine.Send(ctx, deliver.SendRequest{ID: q.ID, PaneID: q.PaneID, Text: q.Text, Force: q.Forced, Reason: q.Reason})
		if keepQueued(res.Outcome) {
			q.LastTry = time.Now()
			d.store.Enqueue(q)
		}
	}
}

// dropQueued gives up on a queued prompt and audits why.
func (d *daemonRun) dropQueued(q store.Queued, why string) {
	d.store.Dequeue(q.ID)
	d.store.AddTrigger(store.Trigger{ID: q.ID, Kind: "send", PaneID: q.PaneID, At: time.Now(), Finished: time.Now(),
		Outcome: string(deliver.TargetNotFound), Detail: "queued prompt dropped: " + why, Forced: q.Forced, Reason: q.Reason})
}

// keepQueued: outcomes after which a queued prompt waits for another chance.
func keepQueued(o deliver.Outcome) bool {
	switch o {
	case deliver.NotReady, deliver.OperatorBusy, deliver.DeferTimeout, deliver.TriggerRateLimited:
		return true
	}
	return false
}
