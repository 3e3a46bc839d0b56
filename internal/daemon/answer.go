package daemon

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/query"
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
	case query.OpMetrics:
		return d.metricsText()
	}
	return nil, fmt.Errorf("unknown question %q (a paneherd of another version?)", req.Op)
}

func (d *Daemon) history(paneID string, limit int) (query.History, error) {
	var h query.History
	var err error
	if h.Transitions, err = d.store.Transitions(paneID, limit); err != nil {
		return h, err
	}
	if h.Notifications, err = d.store.Notifications(paneID, limit); err != nil {
		return h, err
	}
	h.Triggers, err = d.store.Triggers(paneID, limit)
	return h, err
}

// notifyTest delivers a test notification as the daemon would, and records it.
func (d *Daemon) notifyTest(ctx context.Context) query.NotifyTestResult {
	sent := d.notifier.Deliver(ctx, notify.TestNotification())
	d.notifier.Record(sent)
	return query.NotifyTested(sent.Backend, sent.Err)
}
