package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

var cmdHosts = command{
	name:    "hosts",
	summary: "the machines of @paneherd-hosts: reachable or why not, round trip, their paneherd, their panes by state",
	usage:   "hosts [--json] [--timeout 15s]",
	about: `Lists each host of @paneherd-hosts: how this server's daemon follows it (up, stale,
connecting, unreachable or incompatible, and why), the round trip of a cheap command run
there now (` + "`paneherd version`" + `, over the daemon's connection to the host when it holds
one: RTT is the network's round trips, the remote login shell and paneherd's start),
the paneherd there, and how many of its panes are in each state.`,
	more: `The state and the panes are the daemon's (its snapshot); with no daemon, the state is
"-" and the probe alone says whether the host can be reached. Exit 0 whatever the hosts'
states; 1 when the options cannot be read.`,
	link: "[fleet.md](fleet.md#paneherd-hosts)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o hostsOptions
		fs.BoolVar(&o.json, "json", false, `each host's name, dest, state, why, since, version, rtt_ms, via, probe_error, panes`)
		fs.DurationVar(&o.timeout, "timeout", 15*time.Second, "give up on a host's probe after `D` (default 15s)")
		return func(ctx context.Context, e *env, args []string) error { return runHosts(ctx, e, fs, &o, args) }
	},
}

type hostsOptions struct {
	json    bool
	timeout time.Duration
}

// hostLine is one host of `paneherd hosts`.
type hostLine struct {
	Name       string         `json:"name"`
	Dest       string         `json:"dest"`
	State      string         `json:"state,omitempty"` // the daemon's; "" with no daemon
	Why        string         `json:"why,omitempty"`
	Since      *time.Time     `json:"since,omitempty"`
	Version    string         `json:"version,omitempty"`
	RTTMS      float64        `json:"rtt_ms,omitempty"`
	Via        string         `json:"via,omitempty"` // "daemon": over its connection; "own": a connection of the probe's
	ProbeError string         `json:"probe_error,omitempty"`
	Panes      map[string]int `json:"panes"`
}

func runHosts(ctx context.Context, e *env, fs *flag.FlagSet, o *hostsOptions, args []string) error {
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	remotes, err := d.Remotes(ctx)
	if err != nil {
		return err
	}
	snap, snapErr := d.Snapshot()
	lines := make([]hostLine, len(remotes))
	var wg sync.WaitGroup
	for i, r := range remotes {
		lines[i] = fromView(r, snap)
		wg.Go(func() { lines[i].probe(ctx, r, o.timeout) })
	}
	wg.Wait()
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Hosts []hostLine `json:"hosts"`
		}{lines})
	}
	if snapErr != nil && len(lines) > 0 {
		fmt.Fprintf(e.stderr, "paneherd: no daemon's view of the hosts: %v\n", snapErr)
	}
	return writeHosts(e.stdout, lines)
}

// fromView is what the daemon's snapshot says of r's host.
func fromView(r herd.Remote, snap wire.Snapshot) hostLine {
	l := hostLine{Name: r.Host.Label, Dest: r.Host.Dest, Panes: map[string]int{}}
	if r.Host.Port != 0 {
		l.Dest = fmt.Sprintf("%s:%d", r.Host.Dest, r.Host.Port)
	}
	for _, h := range snap.Hosts {
		if h.Name == l.Name {
			since := h.Since
			l.State, l.Why, l.Since, l.Version = h.State, h.Why, &since, h.Version
		}
	}
	for _, p := range snap.Remote {
		if p.Host == l.Name {
			l.Panes[p.State]++
		}
	}
	return l
}

// probe runs `paneherd version` on the host, within timeout.
func (l *hostLine) probe(ctx context.Context, r herd.Remote, timeout time.Duration) {
	if r.Err != nil {
		l.ProbeError = r.Err.Error()
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p := herd.ProbeHost(ctx, r.Conn)
	if p.Err != nil {
		l.ProbeError = firstLine(p.Err.Error())
		return
	}
	l.RTTMS = float64(p.RTT.Microseconds()) / 1000
	l.Via = "own"
	if p.Shared {
		l.Via = "daemon"
	}
	if p.Version != "" {
		l.Version = p.Version
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// writeHosts writes a line per host, then a line for each that has something to say:
// why the daemon cannot follow it, or why the probe could not run where nothing else
// says.
func writeHosts(w io.Writer, lines []hostLine) error {
	if len(lines) == 0 {
		_, err := fmt.Fprintln(w, "no hosts: set @paneherd-hosts (docs/fleet.md)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSTATE\tRTT\tVERSION\tPANES")
	var why []string
	for _, l := range lines {
		rtt := "-"
		if l.Via != "" {
			rtt = fmt.Sprintf("%.0fms (%s)", l.RTTMS, map[string]string{"daemon": "daemon's link", "own": "own link"}[l.Via])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.Name, orDash(l.State), rtt, orDash(l.Version), paneCounts(l.Panes))
		switch {
		case l.Why != "":
			why = append(why, l.Name+": "+l.Why)
		case l.ProbeError != "":
			why = append(why, l.Name+": "+l.ProbeError)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(why) > 0 {
		_, err := fmt.Fprintf(w, "\n%s\n", strings.Join(why, "\n"))
		return err
	}
	return nil
}

// paneCounts is "3: 1 NEEDS_CONFIRMATION, 2 READY", the states by precedence.
func paneCounts(counts map[string]int) string {
	total := 0
	var names []string
	for name, n := range counts {
		total += n
		names = append(names, name)
	}
	if total == 0 {
		return "0"
	}
	slices.SortFunc(names, func(a, b string) int { return rank(a) - rank(b) })
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%d %s", counts[name], name)
	}
	return fmt.Sprintf("%d: %s", total, strings.Join(parts, ", "))
}

// rank orders states as the bar's precedence does, most pressing first.
func rank(name string) int {
	s, err := state.Parse(name)
	if err != nil {
		return 1 << 20
	}
	return -state.Precedence(s)
}
