package herd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

// waitPoll is how often Wait reads the snapshot: a file read, a few microseconds.
const waitPoll = 100 * time.Millisecond

// Wait blocks until the pane a target names is done, and says how it ended. Without
// until, done means READY after having worked (BUSY seen during the wait, or READY
// reached after it began), and the wait ends early when the pane needs a person, fails
// or stalls. With until, it waits for that state. ctx ends it early with ctx.Err(). A
// daemon gone for less than its RevivalGrace (being revived, restarted) does not end
// it; one still gone at the timeout ends it as a timeout.
func (d Daemon) Wait(ctx context.Context, target string, until state.State, timeout time.Duration) (wire.WaitResult, error) {
	return d.WaitProgress(ctx, target, until, timeout, nil)
}

// WaitProgress is Wait that also hands progress the pane at each look while the wait
// goes on (an MCP client's progress notifications).
func (d Daemon) WaitProgress(ctx context.Context, target string, until state.State, timeout time.Duration, progress func(wire.WaitResult)) (wire.WaitResult, error) {
	start := time.Now()
	snap, err := d.awaitSnapshot(ctx, start.Add(timeout))
	if err != nil {
		return d.timedOut(wire.WaitResult{Summary: err.Error()}, err, start, timeout)
	}
	p, err := Resolve(snap.Panes, target)
	if errors.Is(err, wire.ErrNoTarget) {
		return wire.WaitResult{FinalState: outcome.NotFound, Summary: err.Error()}, nil
	}
	if err != nil {
		return wire.WaitResult{}, err
	}
	sawBusy := false
	paneID, byName := p.ID, ""
	if target == p.Name {
		byName = p.Name // a worker named by its name: followed into the pane a restart puts in place of its own
	}
	return d.follow(ctx, &paneID, byName, start, timeout, func(now wire.Pane) wire.WaitResult {
		if now.ID == "" {
			return wire.WaitResult{FinalState: outcome.Crashed, State: string(state.Offline), PaneID: p.ID, Name: p.Name,
				Summary: "the pane is gone"}
		}
		res := resultOf(judge(now, until, start, &sawBusy), now)
		if res.FinalState == "" && progress != nil {
			res.ElapsedMS = time.Since(start).Milliseconds()
			progress(res)
		}
		return res
	})
}

// replacedWithin is how long a wait on a worker, named by its name, looks for the pane a
// restart puts in place of its own (the supervisor starts it at once, and the daemon
// lists it within its follow-up look) before it ends as the pane gone.
const replacedWithin = 3 * time.Second

// follow reads the pane in the daemon's snapshot every waitPoll and hands it to judge
// (a zero pane when the snapshot has none of that id) until judge gives a final state, or
// timeout passes (outcome.Timeout, with the pane as last seen). With byName, a pane gone
// is looked for by that name for replacedWithin (a worker restarted in a new pane) and
// followed there, if one pane of this server has it; *paneID says which is followed.
func (d Daemon) follow(ctx context.Context, paneID *string, byName string, start time.Time, timeout time.Duration, judge func(wire.Pane) wire.WaitResult) (wire.WaitResult, error) {
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	last := wire.WaitResult{PaneID: *paneID}
	var gone time.Time // when the pane followed was first missing
	for {
		snap, err := d.awaitSnapshot(ctx, start.Add(timeout))
		if err != nil {
			return d.timedOut(last, err, start, timeout)
		}
		now := paneByID(snap.Panes, *paneID)
		if now.ID == "" && byName != "" {
			if next := paneNamed(snap.Panes, byName); next.ID != "" {
				*paneID, now = next.ID, next
			} else if gone.IsZero() {
				gone = time.Now()
			}
		}
		if now.ID != "" {
			gone = time.Time{}
		}
		res := last // still looking for the worker's new pane
		if now.ID != "" || byName == "" || time.Since(gone) >= replacedWithin {
			res = judge(now)
		}
		last = res
		res.ElapsedMS = time.Since(start).Milliseconds()
		if res.FinalState == "" && time.Since(start) >= timeout {
			res.FinalState = outcome.Timeout
		}
		if res.FinalState != "" {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return wire.WaitResult{}, ctx.Err()
		case <-tick.C:
		}
	}
}

// snapshotGrace is how long a wait rides out a daemon that is gone or has not published
// its snapshot yet: the bar and the hooks revive a crashed one well within it
// (docs/performance.md#latencies-end-to-end), and `restart` leaves a gap too.
const snapshotGrace = 5 * time.Second

// awaitSnapshot is the daemon's snapshot, read again every waitPoll while the daemon or
// its snapshot is missing, for at most the daemon's RevivalGrace and not past end (the
// wait's timeout). Anything else (a runtime directory not to be trusted, a snapshot that
// does not decode) fails at once, as does a missing tmux server: no daemon can come.
func (d Daemon) awaitSnapshot(ctx context.Context, end time.Time) (wire.Snapshot, error) {
	grace := d.RevivalGrace
	if grace <= 0 {
		grace = snapshotGrace
	}
	deadline := time.Now().Add(grace)
	if end.Before(deadline) {
		deadline = end
	}
	for {
		snap, err := d.Snapshot()
		if err == nil || !missing(err) || !time.Now().Before(deadline) || !exists(d.Server.SocketPath()) {
			return snap, err
		}
		select {
		case <-ctx.Done():
			return snap, ctx.Err()
		case <-time.After(min(waitPoll, time.Until(deadline))):
		}
	}
}

// missing reports an error of a daemon not running or not having published its snapshot
// yet: what a revival looks like from outside.
func missing(err error) bool {
	return errors.Is(err, wire.ErrNoDaemon) || errors.Is(err, fs.ErrNotExist)
}

// timedOut ends a wait whose snapshot could not be read: a timeout, with the pane as last
// seen (res), when the daemon was still missing at the wait's timeout and the tmux server
// runs (one could have come); else err.
func (d Daemon) timedOut(res wire.WaitResult, err error, start time.Time, timeout time.Duration) (wire.WaitResult, error) {
	if !missing(err) || time.Since(start) < timeout || !exists(d.Server.SocketPath()) {
		return wire.WaitResult{}, err
	}
	res.FinalState, res.ElapsedMS = outcome.Timeout, time.Since(start).Milliseconds()
	return res, nil
}

// resultOf is a wait's result for the pane as it is ("" final state: not over).
func resultOf(final outcome.Outcome, p wire.Pane) wire.WaitResult {
	return wire.WaitResult{FinalState: final, State: p.State, PaneID: p.ID, Name: p.Name, Summary: p.Summary}
}

// judge says whether the pane's state ends the wait, and how ("" while waiting on).
func judge(p wire.Pane, until state.State, start time.Time, sawBusy *bool) outcome.Outcome {
	st := state.State(p.State)
	if until != "" {
		if st == until {
			return outcome.Reached
		}
		return ""
	}
	switch st {
	case state.Busy:
		*sawBusy = true
	case state.Ready:
		if *sawBusy || p.Since.After(start) {
			return outcome.Completed
		}
	case state.NeedsConfirmation:
		return outcome.NeedsConfirmation
	case state.Error, state.Exited, state.Offline:
		return outcome.Crashed
	case state.Stalled:
		return outcome.Stuck
	}
	return ""
}

// paneNamed is this server's pane of that name, when exactly one has it (a zero pane
// for none, or for no name).
func paneNamed(panes []wire.Pane, name string) wire.Pane {
	var found wire.Pane
	for _, p := range panes {
		if name != "" && p.Name == name && p.Host == "" {
			if found.ID != "" {
				return wire.Pane{}
			}
			found = p
		}
	}
	return found
}

func paneByID(panes []wire.Pane, id string) wire.Pane {
	for _, p := range panes {
		if p.ID == id {
			return p
		}
	}
	return wire.Pane{}
}

// Tail is the pane's last lines as plain text: its visible screen and the history above
// it, wrapped lines joined (lines 0: the visible screen alone, what a wait's caller reads
// to see how a worker ended), trailing blanks and blank lines dropped, ending with a
// newline.
func (d Daemon) Tail(ctx context.Context, paneID string, lines int) (string, error) {
	if paneID == "" {
		return "", wire.ErrPaneGone
	}
	args := []string{"capture-pane", "-p", "-J", "-t", paneID}
	if lines > 0 {
		args = append(args, "-S", fmt.Sprint(-lines))
	}
	out, err := d.Server.Run(ctx, nil, args...)
	if errors.Is(err, tmux.ErrNoPane) {
		return "", wire.ErrPaneGone
	}
	if err != nil {
		return "", err
	}
	all := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if lines > 0 {
		all = all[max(0, len(all)-lines):]
	}
	for i, l := range all {
		all[i] = strings.TrimRight(l, " ") // -J keeps the blanks that fill a row
	}
	return strings.Join(all, "\n") + "\n", nil
}
