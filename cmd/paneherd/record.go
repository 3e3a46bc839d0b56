package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/record"
	"github.com/paneherd/paneherd/packs"
)

const recordUsage = `usage: paneherd record TARGET DIR [--interval 250ms] [--for DURATION]

Saves the pane's screen each time it changes, until Ctrl-C, --for ends or the pane goes:
DIR/NNNN-STATE-HHMMSS.mmm.txt (as 'tmux capture-pane -p' prints it) and .ansi (with
colours), where STATE is what the status bar showed for the pane, and a line per frame in
DIR/index.tsv with the bar's state and rule beside what the pane's pack reads of that very
screen. Send the frames that read wrong with a bug report; renamed to the state a person
reads, they are fixtures for a pack (see 'paneherd classify --explain FILE').
TARGET is a pane id (%3), a worker name or session:window.pane. Needs a running daemon.
`

func runRecord(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	interval := fs.Duration("interval", 250*time.Millisecond, "")
	limit := fs.Duration("for", 0, "")
	rest, err := parseFlags(fs, args, recordUsage)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return usagef(recordUsage, "record takes a TARGET and a DIR")
	}
	if *interval < 10*time.Millisecond {
		return usagef(recordUsage, "--interval %v: give at least 10ms", *interval)
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	p, err := d.Pane(rest[0])
	if err != nil {
		return targetError(ctx, e, "", false, err)
	}
	r := &record.Recorder{Server: e.server, PaneID: p.ID, Dir: rest[1], Interval: *interval,
		Daemon: barReading(d, p.ID), Pack: recordPack(e, p.Pack),
		Saved: func(f record.Frame) {
			fmt.Fprintf(e.stdout, "%s  bar %s (%s)  pack %s (%s)\n", f.Path, f.Daemon.State, f.Daemon.Rule, f.Pack.State, f.Pack.Rule)
		}}
	if *limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *limit)
		defer cancel()
	}
	fmt.Fprintf(e.stderr, "paneherd: recording %s (%s) into %s; Ctrl-C stops\n", p.ID, p.Name, rest[1])
	err = r.Run(ctx)
	if errors.Is(err, record.ErrPaneGone) {
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
