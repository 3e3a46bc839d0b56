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
)

var waitUsage = `usage: paneherd wait TARGET [--until STATE] [--timeout 10m] [--save-output FILE] [--json]

Blocks until the worker is done, then says how it ended. Without --until, done means READY
after having worked (BUSY seen during the wait, or READY reached after it began), and the
wait also ends early when the worker needs a person or fails. With --until STATE it waits
for that state (READY, BUSY, NEEDS_CONFIRMATION, ERROR, STALLED, OFFLINE). --json prints
{"final_state","state","pane_id","name","elapsed_ms","summary"}.

  --save-output FILE  when the wait ends (however: TIMEOUT too), write the pane's last
                      screenful to FILE as plain text (replaced whole, never half written).
                      A pane that is gone leaves FILE alone, and stderr says so; a FILE
                      that cannot be written is an error (exit 1) after the result.
` + outcome.Usage("wait")

func runWait(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	until := fs.String("until", "", "")
	timeout := fs.Duration("timeout", 10*time.Minute, "")
	asJSON := fs.Bool("json", false, "")
	saveTo := fs.String("save-output", "", "")
	rest, err := parseFlags(fs, args, waitUsage)
	if err != nil {
		return err
	}
	if flagGiven(fs, "save-output") && *saveTo == "" {
		return usagef(waitUsage, "--save-output needs a FILE")
	}
	if len(rest) != 1 {
		return usagef(waitUsage, "wait takes one TARGET")
	}
	var target state.State
	if *until != "" {
		if target, err = state.Parse(*until); err != nil {
			return usagef(waitUsage, "--until: %v", err)
		}
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	res, err := d.Wait(ctx, rest[0], target, *timeout)
	if err != nil {
		return err
	}
	if *asJSON {
		json.NewEncoder(e.stdout).Encode(res)
	} else {
		fmt.Fprintf(e.stdout, "%s %s %s after %s: %s\n", res.FinalState, orDash(res.Name), res.State,
			time.Duration(res.ElapsedMS)*time.Millisecond, res.Summary)
	}
	if *saveTo != "" {
		if err := saveOutput(ctx, e, d, res.PaneID, *saveTo); err != nil {
			return err
		}
	}
	return finish(res.FinalState, "")
}

// saveOutput writes the pane's last screenful to path, through a temp file in the same
// directory and a rename: a reader (an orchestrator polling for the file) sees the whole
// screen or none. A pane that is gone is said on stderr, not an error: the wait's outcome
// already says how it ended.
func saveOutput(ctx context.Context, e *env, d herd.Daemon, paneID, path string) error {
	text, err := d.Tail(ctx, paneID, 0)
	if errors.Is(err, herd.ErrPaneGone) {
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
