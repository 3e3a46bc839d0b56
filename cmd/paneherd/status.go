package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

var cmdStatus = command{
	name:    "status",
	summary: "show every pane's state (--short: one status-bar line, --json)",
	usage:   "status [--short | --json | --names]",
	about:   "With no flag, a table of every pane: name, state, pack, context (how full its agent's context window is: 72%, or tokens when its window is not known), since, target, summary.",
	more: `Reads the daemon's snapshot; never waits on tmux or the daemon. Exit 1 when no daemon runs
for this tmux server.`,
	flags: func(fs *flag.FlagSet) runFunc {
		var o statusOptions
		fs.BoolVar(&o.short, "short", false, "one line of badges for the tmux status bar, tmux-escaped")
		fs.BoolVar(&o.names, "names", false, "every pane's name, one a line, the fleet's as HOST:NAME (what TARGET arguments take; shell completion)")
		fs.BoolVar(&o.json, "json", false, `{"panes":[{"pane_id":..., "host":"", "state":..., "witness":..., ...}], "hosts":[{"name":"devbox","state":"up",...}]}`+"\n"+
			`witness: "screen" (its pack's reading) or "hook" (an agent hook's event, not yet confirmed by the screen); `+
			"context: how full its agent's context window is, when the agent tells (source, used_pct, tokens, window, model, session_tokens_in/out; docs/context.md); "+
			"worker: the supervisor's record of a managed worker (paneherd workers --json); host: the machine of @paneherd-hosts the pane is on (\"\" for this server's); hosts: how each is reached")
		return func(ctx context.Context, e *env, args []string) error { return runStatus(ctx, e, fs, &o, args) }
	},
}

type statusOptions struct {
	short, json, names bool
}

func runStatus(ctx context.Context, e *env, fs *flag.FlagSet, o *statusOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("status takes no arguments")
	}
	if btoi(o.short)+btoi(o.json)+btoi(o.names) > 1 {
		return usagef("--short, --json and --names do not go together")
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
		for _, name := range targetNames(snap) {
			fmt.Fprintln(e.stdout, name)
		}
	case o.json:
		var workers []wire.Worker
		if d, derr := e.daemon(); derr == nil {
			workers, _ = d.Workers() // a registry being rewritten is missed once, not an error
		}
		err = writeStatusJSON(e.stdout, snap, workers)
	default:
		err = writeStatusTable(e.stdout, append(snap.Panes, snap.Remote...))
	}
	return err
}

// targetNames is what TARGET arguments take, for completion: this server's panes' names,
// then the fleet's as HOST:NAME.
func targetNames(snap wire.Snapshot) []string {
	var names []string
	for _, p := range statusline.Sorted(snap.Panes) {
		names = append(names, statusline.Clean(p.Name))
	}
	for _, p := range statusline.Sorted(snap.Remote) {
		names = append(names, statusline.Clean(p.Host+":"+p.Name))
	}
	return names
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
func readLiveSnapshot(e *env) (wire.Snapshot, error) {
	d, err := e.daemon()
	if err != nil {
		return wire.Snapshot{}, err
	}
	return d.Snapshot()
}

// writeStatusJSON writes this server's panes and then the fleet's hosts' (@paneherd-hosts),
// each with its host, and how each host is reached.
func writeStatusJSON(w io.Writer, snap wire.Snapshot, workers []wire.Worker) error {
	out := struct {
		Panes []wire.PaneStatus `json:"panes"`
		Hosts []wire.Host       `json:"hosts,omitempty"`
	}{Panes: herd.StatusOf(append(snap.Panes, snap.Remote...), workers), Hosts: snap.Hosts}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeStatusTable(w io.Writer, panes []wire.Pane) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tPACK\tCONTEXT\tSINCE\tTARGET\tSUMMARY")
	for _, p := range panes {
		name, target := p.Name, fmt.Sprintf("%s:%d.%d", p.Session, p.WindowIndex, p.PaneIndex)
		if p.Host != "" {
			name, target = p.Host+"/"+name, p.Host+":"+target
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, p.State, p.Pack, contextCell(p.Context), since(p.Since), target, p.Summary)
	}
	return tw.Flush()
}

// contextCell says how full a pane's context is: "72%", "150k tok" when its window is
// not known, "-" when its agent told nothing.
func contextCell(c wire.Context) string {
	if _, known := c.UsedPct.Get(); known {
		return c.UsedPct.String()
	}
	switch {
	case c.Tokens >= 1_000_000:
		return strconv.FormatFloat(float64(c.Tokens)/1e6, 'f', 1, 64) + "M tok"
	case c.Tokens >= 1000:
		return strconv.FormatInt(c.Tokens/1000, 10) + "k tok"
	case c.Tokens > 0:
		return strconv.FormatInt(c.Tokens, 10) + " tok"
	}
	return "-"
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
