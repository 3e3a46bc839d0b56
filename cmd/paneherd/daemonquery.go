package main

import (
	"context"
	"fmt"
	"os"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/store"
)

// newNotifier builds the daemon's notifier: desktop through beeep with tmux's environment
// as a source of the bus address, tmux messages as the fallback, history in the store.
func newNotifier(s tmux.Server, st *store.Store, log zerolog.Logger) *notify.Notifier {
	desktop := notify.Desktop{Env: notify.TmuxEnv(s), UID: os.Getuid()}
	var n *notify.Notifier
	tmuxBackend := notify.Tmux{Server: s, Bell: func() bool { return n.Bell() }}
	n = notify.New(desktop, tmuxBackend, notify.Config{})
	n.Log = log
	n.Clients = func(ctx context.Context) ([]notify.Client, error) { return notify.Clients(ctx, s) }
	n.Record = func(sent notify.Sent) {
		if err := st.AddNotification(historyRecord(sent)); err != nil {
			log.Warn().Err(err).Msg("record notification")
		}
	}
	return n
}

func historyRecord(s notify.Sent) store.Notification {
	rec := store.Notification{At: s.At, PaneID: s.PaneID, Event: string(s.Event), Title: s.Title, Body: s.Body, Backend: s.Backend}
	if s.Err != nil {
		rec.Error = s.Err.Error()
	}
	return rec
}

// History is the answer to a history question: the pane's transitions, notifications
// and actions (sends, approvals, denials).
type History struct {
	Transitions   []store.Transition   `json:"transitions"`
	Notifications []store.Notification `json:"notifications"`
	Triggers      []store.Trigger      `json:"triggers"`
}

// NotifyTestResult is the answer to a notification test.
type NotifyTestResult struct {
	Backend string `json:"backend"`
	Error   string `json:"error,omitempty"`
}

// answer serves the CLI's questions from the daemon's database and notifier.
func (d *daemonRun) answer(ctx context.Context, req query.Request) (any, error) {
	switch req.Op {
	case "history":
		var h History
		var err error
		if h.Transitions, err = d.store.Transitions(req.PaneID, req.Limit); err != nil {
			return nil, err
		}
		if h.Notifications, err = d.store.Notifications(req.PaneID, req.Limit); err != nil {
			return nil, err
		}
		h.Triggers, err = d.store.Triggers(req.PaneID, req.Limit)
		return h, err
	case "send":
		return d.send(ctx, req.Body)
	case "answer":
		return d.answerDialog(ctx, req.Body)
	case "notify-test":
		sent := d.notifier.Deliver(ctx, notify.TestNotification())
		d.notifier.Record(sent)
		r := NotifyTestResult{Backend: sent.Backend}
		if sent.Err != nil {
			r.Error = sent.Err.Error()
		}
		return r, nil
	}
	return nil, fmt.Errorf("unknown question %q", req.Op)
}
