package main

import (
	"context"
	"fmt"
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
	r, byDaemon, err := d.NotifyTest(ctx)
	if err != nil {
		return err
	}
	origin := "the daemon"
	if !byDaemon {
		origin = "this process (no daemon runs)"
	}
	if r.Backend == "" {
		return fmt.Errorf("no notification delivered (tried from %s): %s", origin, r.Error)
	}
	_, err = fmt.Fprintf(e.stdout, "delivered by %s, sent from %s\n", r.Backend, origin)
	return err
}
