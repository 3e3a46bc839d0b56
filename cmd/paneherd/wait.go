package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

var cmdWait = command{
	name:    "wait",
	summary: "block until a worker is done; say how it ended",
	usage:   "wait TARGET [--until STATE] [--timeout 10m] [--save-output FILE] [--json]",
	about: `Blocks until the worker is done, then says how it ended. Without --until, done means READY
after having worked (BUSY seen during the wait, or READY reached after it began), and the
wait also ends early when the worker needs a person, fails or exits. With --until STATE it
waits for that state (READY, BUSY, NEEDS_CONFIRMATION, ERROR, STALLED, EXITED, OFFLINE). HOST:TARGET
waits on a host of @paneherd-hosts, through ssh.`,
	more: outcome.Usage("wait"),
	link: "[acting.md](acting.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o waitOptions
		fs.StringVar(&o.until, "until", "", "wait for `STATE` instead of for the worker to be done")
		fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after `D` (default 10m): the outcome is timeout")
		fs.StringVar(&o.saveTo, "save-output", "", "when the wait ends (however: TIMEOUT too), write the pane's last "+
			"screenful to `FILE` as plain text (replaced whole, never half written). A pane that is gone leaves FILE "+
			"alone, and stderr says so; a FILE that cannot be written is an error (exit 1) after the result.")
		fs.BoolVar(&o.json, "json", false, `print {"final_state","state","pane_id","name","elapsed_ms","summary"}`)
		return func(ctx context.Context, e *env, args []string) error { return runWait(ctx, e, fs, &o, args) }
	},
}

type waitOptions struct {
	until, saveTo string
	timeout       time.Duration
	json          bool
}

func runWait(ctx context.Context, e *env, fs *flag.FlagSet, o *waitOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if flagGiven(fs, "save-output") && o.saveTo == "" {
		return usagef("--save-output needs a FILE")
	}
	if len(rest) != 1 {
		return usagef("wait takes one TARGET")
	}
	var target state.State
	if o.until != "" {
		if target, err = state.Parse(o.until); err != nil {
			return usagef("--until: %v", err)
		}
	}
	h, where, err := e.where(ctx, rest[0])
	if errors.Is(err, wire.ErrNoTarget) {
		return reportWait(e, o, wire.WaitResult{FinalState: outcome.NotFound, Summary: err.Error()})
	}
	if err != nil {
		return err
	}
	if h != nil {
		if o.saveTo != "" {
			return usagef("--save-output is for this server's panes: on %s the file would be written there", h.Label)
		}
		return onHost(ctx, e, h, hostArgs(fs, nil, nil, where), nil)
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	res, err := d.Wait(ctx, rest[0], target, o.timeout)
	if err != nil {
		return err
	}
	ended := reportWait(e, o, res)
	if o.saveTo != "" {
		if err := saveOutput(ctx, e, d, res.PaneID, o.saveTo); err != nil {
			return err
		}
	}
	return ended
}

// reportWait prints how a wait ended and returns its outcome.
func reportWait(e *env, o *waitOptions, res wire.WaitResult) error {
	if o.json {
		json.NewEncoder(e.stdout).Encode(res)
	} else {
		fmt.Fprintf(e.stdout, "%s %s %s after %s: %s\n", res.FinalState, orDash(res.Name), res.State,
			time.Duration(res.ElapsedMS)*time.Millisecond, res.Summary)
	}
	return finish(res.FinalState, "")
}

// saveOutput writes the pane's last screenful to path, through a temp file in the same
// directory and a rename: a reader (an orchestrator polling for the file) sees the whole
// screen or none. A pane that is gone is said on stderr, not an error: the wait's outcome
// already says how it ended.
func saveOutput(ctx context.Context, e *env, d herd.Daemon, paneID, path string) error {
	text, err := d.Tail(ctx, paneID, 0)
	if errors.Is(err, wire.ErrPaneGone) {
		fmt.Fprintf(e.stderr, "paneherd: --save-output: the pane is gone; nothing written to %s\n", path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("--save-output: capture the pane: %w", err)
	}
	if err := writeReplacing(path, []byte(text)); err != nil {
		return fmt.Errorf("--save-output: %w", err)
	}
	return nil
}

// writeReplacing replaces path with b: a temp file beside it, then a rename. The file is
// 0600, as CreateTemp makes it: it holds a screen, which may show a secret.
func writeReplacing(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".paneherd-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing by that name
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}
