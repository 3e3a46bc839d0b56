package daemon

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/store"
)

// answer serves the front ends' questions from the store, the delivery engine, the
// notifier and the metrics. ctx ends when the asker hangs up or the daemon stops.
func (d *Daemon) answer(ctx context.Context, req query.Request) (any, error) {
	switch req.Op {
	case query.OpHistory:
		return d.history(req.PaneID, req.Limit)
	case query.OpSend:
		var ask query.SendAsk
		if err := json.Unmarshal(req.Body, &ask); err != nil {
			return nil, fmt.Errorf("send: %w", err)
		}
		return d.queue.send(ctx, ask)
	case query.OpAnswer:
		var ask deliver.AnswerRequest
		if err := json.Unmarshal(req.Body, &ask); err != nil {
			return nil, fmt.Errorf("answer: %w", err)
		}
		return d.engine.Answer(ctx, ask), nil
	case query.OpNotifyTest:
		return d.notifyTest(ctx), nil
	case query.OpCreate, query.OpRetire, query.OpContinue:
		return d.superviseAnswer(ctx, req.Op, req.Body)
	case query.OpMetrics:
		return d.metricsText()
	case query.OpAbout:
		return d.about(ctx)
	}
	return nil, fmt.Errorf("unknown question %s (a paneherd of another version?)", query.Excerpt(req.Op))
}

func (d *Daemon) history(paneID string, limit int) (query.History, error) {
	var h query.History
	// Changes waiting for the store (watcher.commitEvery) are history too; a store that
	// fails to take them still answers with what it has.
	if err := d.w.Flush(); err != nil {
		d.log.Warn().Err(err).Msg("history: waiting changes not written")
	}
	var err error
	if h.Transitions, err = d.store.Transitions(paneID, limit); err != nil {
		return h, err
	}
	if h.Notifications, err = d.store.Notifications(paneID, limit); err != nil {
		return h, err
	}
	if h.Triggers, err = d.store.Triggers(paneID, limit); err != nil {
		return h, err
	}
	h.Events, err = d.workerEvents(paneID, limit)
	return h, err
}

// workerEvents are the managed workers' runtime events at a pane ("": everywhere), the
// newest limit.
func (d *Daemon) workerEvents(paneID string, limit int) ([]store.WorkerEvent, error) {
	all, err := d.store.WorkerEvents("", 0)
	if err != nil || paneID == "" {
		return newestOf(all, limit), err
	}
	var out []store.WorkerEvent
	for _, e := range all {
		if e.PaneID == paneID {
			out = append(out, e)
		}
	}
	return newestOf(out, limit), nil
}

func newestOf[T any](s []T, n int) []T {
	if n > 0 && len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func unmarshal(op string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// notifyTest delivers a test notification as the daemon would, and records it.
func (d *Daemon) notifyTest(ctx context.Context) query.NotifyTestResult {
	sent := d.notifier.Deliver(ctx, notify.TestNotification())
	d.notifier.Record(sent)
	return query.NotifyTested(sent.Backend, sent.Err)
}
