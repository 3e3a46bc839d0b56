package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
)

var waitUsage = `usage: paneherd wait TARGET [--until STATE] [--timeout 10m] [--json]

Blocks until the worker is done, then says how it ended. Without --until, done means READY
after having worked (BUSY seen during the wait, or READY reached after it began), and the
wait also ends early when the worker needs a person or fails. With --until STATE it waits
for that state (READY, BUSY, NEEDS_CONFIRMATION, ERROR, STALLED, OFFLINE). --json prints
{"final_state","state","pane_id","name","elapsed_ms","summary"}.
` + outcome.Usage("wait")

func runWait(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	until := fs.String("until", "", "")
	timeout := fs.Duration("timeout", 10*time.Minute, "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args, waitUsage)
	if err != nil {
		return err
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
	return finish(res.FinalState, "")
}
