package daemon

import (
	"context"
	"slices"
	"time"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/internal/wire"
)

// handlers answer the front ends' questions, one per operation of wire.Ops, from the
// store, the delivery engine, the notifier, the supervisor and the metrics. Their ctx
// ends when the asker hangs up or the daemon stops.
func (d *Daemon) handlers() query.Handlers {
	return query.Handlers{
		wire.OpHistory: query.WithOptionalBody(func(_ context.Context, req wire.Request, ask wire.WorkerAsk) (wire.History, error) {
			return d.history(req.PaneID, ask.Name, req.Limit)
		}),
		wire.OpSend: query.WithBody(func(ctx context.Context, _ wire.Request, ask wire.SendAsk) (wire.Result, error) {
			return d.queue.send(ctx, ask)
		}),
		wire.OpAnswer: query.WithBody(func(ctx context.Context, _ wire.Request, ask wire.AnswerRequest) (wire.Result, error) {
			return d.engine.Answer(ctx, ask), nil
		}),
		wire.OpNotifyTest: func(ctx context.Context, _ wire.Request) (any, error) { return d.notifyTest(ctx), nil },
		wire.OpCreate: query.WithBody(func(ctx context.Context, _ wire.Request, ask wire.CreateAsk) (wire.Worker, error) {
			return d.sup.Create(ctx, ask)
		}),
		wire.OpRetire: query.WithBody(func(ctx context.Context, _ wire.Request, ask wire.WorkerAsk) (wire.Worker, error) {
			return d.sup.Retire(ctx, ask.Name)
		}),
		wire.OpContinue: query.WithBody(func(ctx context.Context, _ wire.Request, ask wire.WorkerAsk) (wire.Worker, error) {
			return d.sup.Continue(ctx, ask.Name)
		}),
		wire.OpMetrics: func(context.Context, wire.Request) (any, error) { return d.metricsText() },
		wire.OpSnapshot: query.WithBody(func(ctx context.Context, _ wire.Request, ask wire.SnapshotAsk) (wire.Published, error) {
			return d.published.next(ctx, ask), nil
		}),
		wire.OpAbout: func(ctx context.Context, _ wire.Request) (any, error) { return d.about(ctx) },
	}
}

// history is a pane's history ("": every pane's), or with worker a worker's by its name.
func (d *Daemon) history(paneID, worker string, limit int) (wire.History, error) {
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

func (d *Daemon) paneHistory(paneID string, limit int) (wire.History, error) {
	h, err := d.records(paneID, limit)
	if err != nil {
		return h, err
	}
	h.Events, err = d.workerEvents(paneID, limit)
	return h, err
}

// records are a pane's transitions, notifications and actions ("": every pane's), the
// newest limit of each.
func (d *Daemon) records(paneID string, limit int) (wire.History, error) {
	var h wire.History
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
func (d *Daemon) workerHistory(name string, limit int) (wire.History, error) {
	events, err := d.store.WorkerEvents(name, 0)
	if err != nil {
		return wire.History{}, err
	}
	h := wire.History{Events: newestOf(events, limit)}
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
	h.Transitions = oldestFirst(h.Transitions, func(t wire.Transition) time.Time { return t.At }, limit)
	h.Notifications = oldestFirst(h.Notifications, func(n wire.Notification) time.Time { return n.At }, limit)
	h.Triggers = oldestFirst(h.Triggers, func(t wire.Trigger) time.Time { return t.At }, limit)
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
func (d *Daemon) workerEvents(paneID string, limit int) ([]wire.WorkerEvent, error) {
	all, err := d.store.WorkerEvents("", 0)
	if err != nil || paneID == "" {
		return newestOf(all, limit), err
	}
	var out []wire.WorkerEvent
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

// notifyTest delivers a test notification through every backend as the daemon would,
// and records it.
func (d *Daemon) notifyTest(ctx context.Context) wire.NotifyTestResult {
	sent := d.notifier.Deliver(ctx, notify.TestNotification())
	d.notifier.Record(sent)
	return notify.Tested(sent)
}
