package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/record"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

var cmdRecord = command{
	name:    "record",
	summary: "save a pane's screen each time it changes, with the state paneherd read",
	usage:   "record TARGET DIR [--interval 250ms] [--for DURATION]",
	about: `Saves the pane's screen each time it changes, until Ctrl-C, --for ends or the pane goes:
DIR/NNNN-STATE-HHMMSS.mmm.txt (as 'tmux capture-pane -p' prints it) and .ansi (with
colours), where STATE is what the status bar showed for the pane, and a line per frame in
DIR/index.tsv with the bar's state and rule beside what the pane's pack reads of that very
screen. Send the frames that read wrong with a bug report; renamed to the state a person
reads, they are fixtures for a pack (see 'paneherd classify --explain FILE').
TARGET is a pane id (%3), a worker name or session:window.pane. Needs a running daemon.`,
	link: "[packs.md](packs.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o recordOptions
		fs.DurationVar(&o.interval, "interval", 250*time.Millisecond, "look at the pane every `D`, at least 10ms (default 250ms)")
		fs.DurationVar(&o.limit, "for", 0, "stop after `DURATION`")
		return func(ctx context.Context, e *env, args []string) error { return runRecord(ctx, e, fs, &o, args) }
	},
}

type recordOptions struct {
	interval, limit time.Duration
}

func runRecord(ctx context.Context, e *env, fs *flag.FlagSet, o *recordOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return usagef("record takes a TARGET and a DIR")
	}
	if o.interval < 10*time.Millisecond {
		return usagef("--interval %v: give at least 10ms", o.interval)
	}
	if h, target, err := e.where(ctx, rest[0]); err != nil {
		return targetError(ctx, e, "", false, err)
	} else if h != nil {
		return usagef("record saves this server's panes (its files are written where it runs): run it on %s, 'paneherd record %s DIR' there", h.Label, target)
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	p, err := d.Pane(rest[0])
	if err != nil {
		return targetError(ctx, e, "", false, err)
	}
	r := &record.Recorder{Server: e.server, PaneID: p.ID, Dir: rest[1], Interval: o.interval,
		Daemon: barReading(d, p.ID), Pack: recordPack(e, p.Pack),
		Saved: func(f record.Frame) {
			fmt.Fprintf(e.stdout, "%s  bar %s (%s)  pack %s (%s)\n", f.Path, f.Daemon.State, f.Daemon.Rule, f.Pack.State, f.Pack.Rule)
		}}
	if o.limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.limit)
		defer cancel()
	}
	fmt.Fprintf(e.stderr, "paneherd: recording %s (%s) into %s; Ctrl-C stops\n", p.ID, p.Name, rest[1])
	err = r.Run(ctx)
	if errors.Is(err, wire.ErrPaneGone) {
		fmt.Fprintf(e.stderr, "paneherd: %v; recording ended\n", err)
		return nil
	}
	return err
}

// barReading is what the daemon's snapshot says of the pane now.
func barReading(d herd.Daemon, paneID string) func() (record.Reading, error) {
	return func() (record.Reading, error) {
		p, err := d.Pane(paneID)
		return record.Reading{State: p.State, Rule: p.Rule, Summary: p.Summary}, err
	}
}

// recordPack is the pack the daemon reads the pane with, to read each saved screen too.
func recordPack(e *env, name string) *packs.Pack {
	set := packs.Load(packs.UserDir(e.getenv))
	if p, err := set.Get(name); err == nil {
		return p
	}
	return nil
}
