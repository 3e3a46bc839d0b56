package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/internal/wire"
)

var cmdNotify = command{
	name:    "notify",
	summary: "notify test: send a test notification through every backend and say what each did",
	usage:   "notify test",
	about: `Sends a test notification through every configured backend the way the daemon would,
and prints a line per backend: delivered, or why not and what to do. Sent by the daemon
when it runs (its environment is the one that matters), else from this process. Exits 1
when a backend failed and none took its place.`,
	link:  "[notifications.md](notifications.md)",
	flags: noFlags(runNotify),
}

func runNotify(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 || args[0] != "test" {
		return usagef("notify takes one subcommand: test")
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
	results := r.Backends
	if len(results) == 0 && r.Backend != "" {
		results = []wire.BackendResult{{Name: r.Backend}} // an older daemon says only who delivered
	}
	for _, b := range results {
		if _, err := fmt.Fprintln(e.stdout, backendLine(b)); err != nil {
			return err
		}
	}
	if r.Error != "" {
		if len(r.Backends) == 0 {
			return fmt.Errorf("no notification delivered (tried from %s): %s", origin, r.Error)
		}
		return fmt.Errorf("not every backend delivered the test notification (sent from %s)", origin)
	}
	_, err = fmt.Fprintf(e.stdout, "sent from %s\n", origin)
	return err
}

// backendLine is one backend's part: delivered, or why not (a backend's error says what
// to do), or that another took its place.
func backendLine(b wire.BackendResult) string {
	why := strings.TrimPrefix(b.Error, b.Name+": ")
	switch {
	case b.Error == "":
		return "delivered by " + b.Name
	case b.Covered:
		return "not delivered by " + b.Name + " (another backend took its place): " + why
	}
	return "not delivered by " + b.Name + ": " + why
}
