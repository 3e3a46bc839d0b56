package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

const statusUsage = `usage: paneherd status [--short | --json | --names]

  (no flag)  a table of every pane: name, state, pack, since, target, summary
  --short    one line of badges for the tmux status bar, tmux-escaped
  --names    every pane's name, one a line (what TARGET arguments take; shell completion)
  --json     {"panes":[{"pane_id":..., "host":"", "state":..., "witness":..., ...}],
             "hosts":[{"name":"devbox","state":"up",...}]}
             witness: "screen" (its pack's reading) or "hook" (an agent hook's
             event, not yet confirmed by the screen); worker: the supervisor's
             record of a managed worker (paneherd workers --json); host: the
             machine of @paneherd-hosts the pane is on ("": this server)

Reads the daemon's snapshot; never waits on tmux or the daemon. Exit 1 when no daemon runs
for this tmux server.
`

type statusOptions struct {
	short, json, names bool
}

func runStatus(ctx context.Context, e *env, args []string) error {
	var o statusOptions
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.BoolVar(&o.short, "short", false, "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.names, "names", false, "")
	rest, err := parseFlags(fs, args, statusUsage)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(statusUsage, "status takes no arguments")
	}
	if btoi(o.short)+btoi(o.json)+btoi(o.names) > 1 {
		return usagef(statusUsage, "--short, --json and --names do not go together")
	}
	if o.short {
		return printShort(e)
	}
	snap, err := readLiveSnapshot(e)
	if err != nil {
		return err
	}
	switch {
	case o.names:
		for _, p := range statusline.Sorted(snap.Panes) {
			fmt.Fprintln(e.stdout, statusline.Clean(p.Name))
		}
	case o.json:
		var workers []store.Worker
		if d, derr := e.daemon(); derr == nil {
			workers, _ = d.Workers() // a registry being rewritten is missed once, not an error
		}
		err = writeStatusJSON(e.stdout, snap, workers)
	default:
		err = writeStatusTable(e.stdout, append(snap.Panes, snap.Remote...))
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

// writeStatusJSON writes this server's panes and then the fleet's hosts' (@paneherd-hosts),
// each with its host, and how each host is reached.
func writeStatusJSON(w io.Writer, snap statusline.Snapshot, workers []store.Worker) error {
	out := struct {
		Panes []herd.PaneStatus `json:"panes"`
		Hosts []statusline.Host `json:"hosts,omitempty"`
	}{Panes: herd.StatusOf(append(snap.Panes, snap.Remote...), workers), Hosts: snap.Hosts}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeStatusTable(w io.Writer, panes []store.Pane) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tPACK\tSINCE\tTARGET\tSUMMARY")
	for _, p := range panes {
		name, target := p.Name, fmt.Sprintf("%s:%d.%d", p.Session, p.WindowIndex, p.PaneIndex)
		if p.Host != "" {
			name, target = p.Host+"/"+name, p.Host+":"+target
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, p.State, p.Pack, since(p.Since), target, p.Summary)
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
