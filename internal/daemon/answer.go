package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

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
		var ask query.WorkerAsk
		if len(req.Body) > 0 {
			if err := unmarshal(req.Op, req.Body, &ask); err != nil {
				return nil, err
			}
		}
		return d.history(req.PaneID, ask.Name, req.Limit)
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
	case query.OpSnapshot:
		var ask query.SnapshotAsk
		if err := unmarshal(req.Op, req.Body, &ask); err != nil {
			return nil, err
		}
		return d.published.next(ctx, ask), nil
	}
	return nil, fmt.Errorf("unknown question %s (a paneherd of another version?)", query.Excerpt(req.Op))
}

// history is a pane's history ("": every pane's), or with worker a worker's by its name.
func (d *Daemon) history(paneID, worker string, limit int) (query.History, error) {
	// Changes waiting for the store (watcher.commitEvery) are history too; a store that
	// fails to take them still answers with what it has.
	if err := d.w.Flush(); err != nil {
		d.log.Warn().Err(err).Msg("history: waiting changes not written")
	}
	if worker != "" {
		return d.workerHistory(worker, limit)
	}
	return d.paneHistory(paneID, limit)
}

func (d *Daemon) paneHistory(paneID string, limit int) (query.History, error) {
	h, err := d.records(paneID, limit)
	if err != nil {
		return h, err
	}
	h.Events, err = d.workerEvents(paneID, limit)
	return h, err
}

// records are a pane's transitions, notifications and actions ("": every pane's), the
// newest limit of each.
func (d *Daemon) records(paneID string, limit int) (query.History, error) {
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

// workerHistory is a worker's history found by its name, which outlives its record: its
// runtime events and what happened at every pane they name (a restart may have opened
// another), the newest limit of each kind. A retired worker's pane is gone from tmux, so
// only its events still tie the name to its panes.
func (d *Daemon) workerHistory(name string, limit int) (query.History, error) {
	events, err := d.store.WorkerEvents(name, 0)
	if err != nil {
		return query.History{}, err
	}
	h := query.History{Events: newestOf(events, limit)}
	seen := map[string]bool{"": true}
	for _, e := range events {
		if seen[e.PaneID] {
			continue
		}
		seen[e.PaneID] = true
		one, err := d.records(e.PaneID, limit)
		if err != nil {
			return h, err
		}
		h.Transitions = append(h.Transitions, one.Transitions...)
		h.Notifications = append(h.Notifications, one.Notifications...)
		h.Triggers = append(h.Triggers, one.Triggers...)
	}
	h.Transitions = oldestFirst(h.Transitions, func(t store.Transition) time.Time { return t.At }, limit)
	h.Notifications = oldestFirst(h.Notifications, func(n store.Notification) time.Time { return n.At }, limit)
	h.Triggers = oldestFirst(h.Triggers, func(t store.Trigger) time.Time { return t.At }, limit)
	return h, nil
}

// oldestFirst sorts entries gathered from several panes by time and keeps the newest
// limit.
func oldestFirst[T any](s []T, at func(T) time.Time, limit int) []T {
	slices.SortStableFunc(s, func(a, b T) int { return at(a).Compare(at(b)) })
	return newestOf(s, limit)
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

// notifyTest delivers a test notification through every backend as the daemon would,
// and records it.
func (d *Daemon) notifyTest(ctx context.Context) query.NotifyTestResult {
	sent := d.notifier.Deliver(ctx, notify.TestNotification())
	d.notifier.Record(sent)
	return query.NotifyTested(sent)
}
