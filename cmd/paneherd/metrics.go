package main

import (
	"context"
	"io"
)

var cmdMetrics = command{
	name:    "metrics",
	summary: "the daemon's metrics in the Prometheus text format (counts of actions, notifications, panes per state)",
	usage:   "metrics",
	about: `Prints the daemon's metrics in the Prometheus text format: actions on panes and their
outcomes, notifications, restarts of managed workers, registry drift, and how many panes
are in each state. Asks the running daemon. To have a Prometheus scraper read them, set
@paneherd-metrics-listen to a loopback address (127.0.0.1:9464).`,
	link:  "[metrics.md](metrics.md)",
	flags: noFlags(runMetrics),
}

func runMetrics(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("metrics takes no arguments")
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	text, err := d.Metrics(ctx)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, text)
	return err
}
