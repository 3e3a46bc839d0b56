package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/query"
)

const notifyUsage = `usage: paneherd notify test

Sends a test notification the way the daemon would, and says which backend delivered it
(desktop or tmux) or exactly why none could. Sent by the daemon when it runs (its
environment is the one that matters), else from this process.
`

func runNotify(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 || args[0] != "test" {
		return usagef(notifyUsage, "notify takes one subcommand: test")
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	origin := "the daemon"
	r, err := d.NotifyTest(ctx)
	if errors.Is(err, herd.ErrNoDaemon) {
		origin = "this process (no daemon runs)"
		r = notifyHere(ctx, e)
	} else if err != nil {
		return err
	}
	if r.Backend == "" {
		return fmt.Errorf("no notification delivered (tried from %s): %s", origin, r.Error)
	}
	_, err = fmt.Fprintf(e.stdout, "delivered by %s, sent from %s\n", r.Backend, origin)
	return err
}

// notifyHere delivers the test from this process with the user's backend option.
func notifyHere(ctx context.Context, e *env) query.NotifyTestResult {
	cfg := notify.Config{Backend: "auto"}
	if values, err := options.Load(ctx, e.server); err == nil {
		cfg = values.Notify()
	}
	n := notify.New(notify.Desktop{Env: notify.TmuxEnv(e.server), UID: os.Getuid()},
		notify.Tmux{Server: e.server}, cfg)
	sent := n.Deliver(ctx, notify.TestNotification())
	r := query.NotifyTestResult{Backend: sent.Backend}
	if sent.Err != nil {
		r.Error = sent.Err.Error()
	}
	return r
}
