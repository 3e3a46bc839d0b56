package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/store"
)

const waitUsage = `usage: paneherd wait TARGET [--until STATE] [--timeout 10m] [--json]

Blocks until the worker is done, then says how it ended. Without --until, done means READY
after having worked (BUSY seen during the wait, or READY reached after it began), and the
wait also ends early when the worker needs a person or fails. With --until STATE it waits
for that state (READY, BUSY, NEEDS_CONFIRMATION, ERROR, STALLED, OFFLINE).

final_state and exit codes: completed 0 (or reached, with --until), needs_confirmation 20,
crashed 21 (ERROR, OFFLINE, or the pane is gone), stuck 22 (STALLED), timeout 23,
not_found 10. --json prints {"final_state","state","pane_id","name","elapsed_ms","summary"}.
`

// waitPoll is how often wait reads the snapshot: a file read, a few microseconds.
const waitPoll = 100 * time.Millisecond

type waitResult struct {
	FinalState string `json:"final_state"`
	State      string `json:"state"`
	PaneID     string `json:"pane_id"`
	Name       string `json:"name"`
	ElapsedMS  int64  `json:"elapsed_ms"`
	Summary    string `json:"summary"`
}

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
	res, err := waitFor(ctx, e, rest[0], target, *timeout)
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

// waitFor polls the snapshot until the pane ends the wait.
func waitFor(ctx context.Context, e *env, target string, until state.State, timeout time.Duration) (waitResult, error) {
	start := time.Now()
	snap, err := readLiveSnapshot(e)
	if err != nil {
		return waitResult{}, err
	}
	p, err := resolveTarget(snap.Panes, target)
	if err != nil {
		return waitResult{FinalState: "not_found", Summary: err.Error()}, nil
	}
	sawBusy := false
	for {
		final := judge(p, until, start, &sawBusy)
		elapsed := time.Since(start)
		if final == "" && elapsed >= timeout {
			final = "timeout"
		}
		if final != "" {
			return waitResult{final, p.State, p.ID, p.Name, elapsed.Milliseconds(), p.Summary}, nil
		}
		select {
		case <-ctx.Done():
			return waitResult{}, ctx.Err()
		case <-time.After(waitPoll):
		}
		if snap, err = readLiveSnapshot(e); err != nil {
			return waitResult{}, err
		}
		if p = paneByID(snap.Panes, p.ID); p.ID == "" {
			return waitResult{FinalState: "crashed", State: "OFFLINE", Summary: "the pane is gone", ElapsedMS: elapsed.Milliseconds()}, nil
		}
	}
}

// judge says whether the pane's state ends the wait, and how ("" while waiting on).
func judge(p store.Pane, until state.State, start time.Time, sawBusy *bool) string {
	st := state.State(p.State)
	if until != "" {
		if st == until {
			return "reached"
		}
		return ""
	}
	switch st {
	case state.Busy:
		*sawBusy = true
	case state.Ready:
		if *sawBusy || p.Since.After(start) {
			return "completed"
		}
	case state.NeedsConfirmation:
		return "needs_confirmation"
	case state.Error, state.Offline:
		return "crashed"
	case state.Stalled:
		return "stuck"
	}
	return ""
}

func paneByID(panes []store.Pane, id string) store.Pane {
	for _, p := range panes {
		if p.ID == id {
			return p
		}
	}
	return store.Pane{}
}
