package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/wire"
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
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
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

var cmdSwitch = command{
	name:    "switch",
	summary: "take the current tmux client to a worker",
	usage:   "switch NAME [--client NAME]",
	about: `Takes the current tmux client (or --client) to the worker: its session, window and
pane. NAME is a managed worker's name, a worker name as the status line shows it, a
pane id (%3) or session:window.pane.`,
	flags: func(fs *flag.FlagSet) runFunc {
		client := fs.String("client", "", "take the tmux client `NAME` there")
		return func(ctx context.Context, e *env, args []string) error { return runSwitch(ctx, e, fs, client, args) }
	},
}

func runSwitch(ctx context.Context, e *env, fs *flag.FlagSet, client *string, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	target, err := oneName(rest, "switch")
	if err != nil {
		return err
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	paneID, err := workerPane(d, target)
	if err != nil {
		return err
	}
	if *client == "" && e.getenv("TMUX") == "" {
		if *client, err = personsClient(ctx, e, ""); err != nil {
			return fmt.Errorf("not inside tmux and %w: attach to the server first", err)
		}
	}
	_, err = e.server.Run(ctx, nil, clientArgs(*client, "switch-client", "-t", paneID)...)
	return err
}

// workerPane is the pane of a managed worker by name, else of any pane the target names.
func workerPane(d herd.Daemon, target string) (string, error) {
	if w, err := d.Worker(target); err == nil {
		return w.PaneID, nil
	} else if !errors.Is(err, wire.ErrNoTarget) {
		return "", err
	}
	p, err := d.Pane(target)
	return p.ID, err
}

func oneName(args []string, command string) (string, error) {
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return "", usagef("%s takes one NAME", command)
	}
	return args[0], nil
}
