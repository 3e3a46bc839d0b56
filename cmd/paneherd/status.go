package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

const statusUsage = `usage: paneherd status [--short | --json]

  (no flag)  a table of every pane: name, state, pack, since, target, summary
  --short    one line of badges for the tmux status bar, tmux-escaped
  --json     {"panes":[{"pane_id":..., "state":..., "witness":..., ...}]}
             witness: "screen" (its pack's reading) or "hook" (an agent hook's
             event, not yet confirmed by the screen); worker: the supervisor's
             record of a managed worker (paneherd workers --json)

Reads the daemon's snapshot; never waits on tmux or the daemon. Exit 1 when no daemon runs
for this tmux server.
`

type statusOptions struct {
	short, json bool
}

func runStatus(ctx context.Context, e *env, args []string) error {
	var o statusOptions
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.BoolVar(&o.short, "short", false, "")
	fs.BoolVar(&o.json, "json", false, "")
	rest, err := parseFlags(fs, args, statusUsage)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(statusUsage, "status takes no arguments")
	}
	if o.short && o.json {
		return usagef(statusUsage, "--short and --json do not go together")
	}
	if o.short {
		return printShort(e)
	}
	snap, err := readLiveSnapshot(e)
	if err != nil {
		return err
	}
	switch {
	case o.json:
		var workers []store.Worker
		if d, derr := e.daemon(); derr == nil {
			workers, _ = d.Workers() // a registry being rewritten is missed once, not an error
		}
		err = writeStatusJSON(e.stdout, snap.Panes, workers)
	default:
		err = writeStatusTable(e.stdout, snap.Panes)
	}
	return err
}

// printShort prints the status bar's line: the badges, or the off marker when no daemon
// runs (then with the error saying so).
func printShort(e *env) error {
	snap, err := readLiveSnapshot(e)
	if err != nil {
		fmt.Fprintln(e.stdout, statusline.Off)
		return err
	}
	_, err = fmt.Fprintln(e.stdout, snap.Line)
	return err
}

// readLiveSnapshot reads the snapshot, but only if a daemon is alive to keep it true.
func readLiveSnapshot(e *env) (statusline.Snapshot, error) {
	d, err := e.daemon()
	if err != nil {
		return statusline.Snapshot{}, err
	}
	return d.Snapshot()
}

// statusPane is one pane in `status --json`: the public shape, kept apart from the
// database record so the record can grow without changing what scripts read.
type statusPane struct {
	PaneID      string `json:"pane_id"`
	Session     string `json:"session"`
	Window      string `json:"window"`
	WindowIndex int    `json:"window_index"`
	PaneIndex   int    `json:"pane_index"`
	Name        string `json:"name"`
	Pack        string `json:"pack"`
	State       string `json:"state"`
	Rule        string `json:"rule"` // the pack's rule (or the watcher's, or hook:AGENT:EVENT) that set the state
	// Witness is who holds the state now: "screen" (the pack's reading) or "hook" (an
	// agent hook's event the screen has not confirmed yet).
	Witness string    `json:"witness"`
	Summary string    `json:"summary"`
	Since   time.Time `json:"since"`
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	CWD     string    `json:"cwd"`
	// Worker is the supervisor's record when the pane is a managed worker's
	// (paneherd create): runtime status, restarts, heartbeat, last trigger.
	Worker *store.Worker `json:"worker,omitempty"`
}

func writeStatusJSON(w io.Writer, panes []store.Pane, workers []store.Worker) error {
	out := struct {
		Panes []statusPane `json:"panes"`
	}{Panes: make([]statusPane, 0, len(panes))}
	for _, p := range panes {
		out.Panes = append(out.Panes, statusPane{p.ID, p.Session, p.Window, p.WindowIndex, p.PaneIndex,
			p.Name, p.Pack, p.State, p.Rule, witness(p), p.Summary, p.Since, p.Command, p.PID, p.CWD, managed(workers, p.ID)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// managed is the worker whose pane it is, if any.
func managed(workers []store.Worker, paneID string) *store.Worker {
	for i := range workers {
		if workers[i].PaneID == paneID {
			return &workers[i]
		}
	}
	return nil
}

// witness is who holds the pane's state; a record from before hooks were witnesses was
// the screen's.
func witness(p store.Pane) string {
	if p.Witness == "" {
		return tracker.WitnessScreen
	}
	return p.Witness
}

func writeStatusTable(w io.Writer, panes []store.Pane) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tPACK\tSINCE\tTARGET\tSUMMARY")
	for _, p := range panes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s:%d.%d\t%s\n", p.Name, p.State, p.Pack,
			since(p.Since), p.Session, p.WindowIndex, p.PaneIndex, p.Summary)
	}
	return tw.Flush()
}

// since says how long ago t was, as a person reads it in a table.
func since(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return time.Since(t).Truncate(time.Second).String()
}
