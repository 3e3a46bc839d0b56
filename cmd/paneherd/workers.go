package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
)

var cmdWorkers = command{
	name:    "workers",
	summary: "list the managed workers (--json); workers continue NAME: start a failed one again",
	usage:   "workers [--json | --names]\nworkers continue NAME",
	about: `Lists the managed workers ('paneherd create' starts them): name, runtime status
(starting, ready, triggering, awaiting_ack, failed, offline), the pane's state, where it
runs, restarts, and why, when something needs saying.

'continue NAME' is a person saying go on: a worker that failed (3 crashes within 15
minutes) is started again, health prompts paused for changing nothing resume, a frozen
worker that was escalated is watched anew.`,
	link: "[supervising.md](supervising.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o workersOptions
		fs.BoolVar(&o.json, "json", false, "print the registry records: id, name, workspace, session, window, pane_id, "+
			"pid, status, person_active, heartbeat, last_trigger, restarts, ...")
		fs.BoolVar(&o.names, "names", false, "print each one's name, one a line (what continue and retire take; shell completion)")
		return func(ctx context.Context, e *env, args []string) error { return runWorkers(ctx, e, fs, &o, args) }
	},
}

type workersOptions struct {
	json, names bool
}

func runWorkers(ctx context.Context, e *env, fs *flag.FlagSet, o *workersOptions, args []string) error {
	if len(args) > 0 && args[0] == "continue" {
		return runContinue(ctx, e, args[1:])
	}
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if o.json && o.names {
		return usagef("--json and --names do not go together")
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	ws, err := d.Workers()
	if err != nil {
		return err
	}
	switch {
	case o.json:
		return json.NewEncoder(e.stdout).Encode(ws)
	case o.names:
		for _, w := range ws {
			fmt.Fprintln(e.stdout, w.Name)
		}
		return nil
	}
	if len(ws) == 0 {
		fmt.Fprintln(e.stdout, "no managed workers (paneherd create DIR starts one)")
		return nil
	}
	snap, _ := d.Snapshot()
	t := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "NAME\tSTATUS\tSTATE\tPANE\tWHERE\tRESTARTS\tWORKSPACE\tWHY")
	for _, w := range ws {
		st := "-"
		for _, p := range snap.Panes {
			if p.ID == w.PaneID {
				st = p.State
			}
		}
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s:%s\t%d\t%s\t%s\n", w.Name, w.Status, st, w.PaneID, w.Session, w.Window,
			w.Restarts, w.Workspace, orDash(w.Why))
	}
	return t.Flush()
}

func runContinue(ctx context.Context, e *env, args []string) error {
	name, err := oneName(args, "workers continue")
	if err != nil {
		return err
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	w, err := d.Continue(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s %s %s\n", w.Name, w.Status, w.PaneID)
	return nil
}

var cmdRetire = command{
	name:    "retire",
	summary: "stop a managed worker for good: interrupt, then close its pane; its history stays",
	usage:   "retire NAME [--json]",
	about: `Stops a managed worker for good: presses its pack's interrupt keys, waits up to
@paneherd-retire-wait for it to quit, then kills its pane, and removes it from the
registry. Its history (transitions, actions, runtime events) stays: paneherd history.`,
	link: "[supervising.md](supervising.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		asJSON := fs.Bool("json", false, "print the retired worker's registry record")
		return func(ctx context.Context, e *env, args []string) error { return runRetire(ctx, e, fs, asJSON, args) }
	},
}

func runRetire(ctx context.Context, e *env, fs *flag.FlagSet, asJSON *bool, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	name, err := oneName(rest, "retire")
	if err != nil {
		return err
	}
	h, name, err := e.where(ctx, name)
	if err != nil {
		return err
	}
	if h != nil {
		return onHost(ctx, e, h, hostArgs(fs, nil, nil, name), nil)
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	w, err := d.Retire(ctx, name)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(w)
	}
	fmt.Fprintf(e.stdout, "%s retired (was %s in %s:%s)\n", w.Name, w.PaneID, w.Session, w.Window)
	return nil
}

func oneName(args []string, command string) (string, error) {
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return "", usagef("%s takes one NAME", command)
	}
	return args[0], nil
}
