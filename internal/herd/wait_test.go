package herd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// publish makes the next fake daemon started publish the pane in this state.
func publish(t *testing.T, st state.State) {
	t.Helper()
	b, err := json.Marshal(wire.Snapshot{Panes: []wire.Pane{{ID: "%1", Name: "w1", State: string(st), Since: time.Now()}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HERD_FAKE_SNAPSHOT", string(b))
}

// startFake starts the fake daemon and has it killed when the test ends.
func startFake(t *testing.T, d Daemon, bin string) int {
	t.Helper()
	pid, err := d.Start(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// TestWaitRidesOutARevival: a daemon killed and revived while a wait follows its pane
// (the bar and the hooks revive one soon), and a wait begun while none runs,
// go on as if it had been there all along.
func TestWaitRidesOutARevival(t *testing.T) {
	d, bin := fakeDaemon(t, "exec "+os.Args[0]+" -test.run=^TestHelperDaemon$")
	publish(t, state.Busy)
	pid := startFake(t, d, bin)
	busy := make(chan struct{})
	type waited struct {
		res wire.WaitResult
		err error
	}
	done := make(chan waited, 1)
	go func() {
		seen := false
		res, err := d.WaitProgress(context.Background(), "w1", "", 30*time.Second, func(r wire.WaitResult) {
			if r.State == string(state.Busy) && !seen {
				seen = true
				close(busy)
			}
		})
		done <- waited{res, err}
	}()
	<-busy
	kill(t, d, pid)
	time.Sleep(300 * time.Millisecond) // the revival's gap, as measured: the scenario, not a wait
	publish(t, state.Ready)
	startFake(t, d, bin)
	w := <-done
	if w.err != nil || w.res.FinalState != outcome.Completed {
		t.Errorf("wait across a revival: %+v, %v; want completed", w.res, w.err)
	}

	// Begun while no daemon runs: it waits for one.
	kill(t, d, d.PID())
	go func() {
		res, err := d.Wait(context.Background(), "w1", state.Ready, 30*time.Second)
		done <- waited{res, err}
	}()
	time.Sleep(300 * time.Millisecond)
	startFake(t, d, bin)
	w = <-done
	if w.err != nil || w.res.FinalState != outcome.Reached {
		t.Errorf("wait begun with no daemon: %+v, %v; want reached", w.res, w.err)
	}
}

// TestWaitGivesUpOnAMissingDaemon: no daemon comes back within the grace: the wait
// fails, saying none runs; with no tmux server at all, at once.
func TestWaitGivesUpOnAMissingDaemon(t *testing.T) {
	d, _ := fakeDaemon(t, "exit 1")
	d.RevivalGrace = 200 * time.Millisecond
	start := time.Now()
	_, err := d.Wait(context.Background(), "w1", "", time.Minute)
	if took := time.Since(start); !errors.Is(err, wire.ErrNoDaemon) || took < d.RevivalGrace {
		t.Errorf("wait with no daemon: %v after %s; want ErrNoDaemon after %s", err, took, d.RevivalGrace)
	}
	os.Remove(d.Server.SocketPath())
	d.RevivalGrace = 0 // the default: it must not be waited out
	start = time.Now()
	_, err = d.Wait(context.Background(), "w1", "", time.Minute)
	if took := time.Since(start); !errors.Is(err, wire.ErrNoDaemon) || took >= snapshotGrace/2 {
		t.Errorf("wait with no tmux server: %v after %s; want ErrNoDaemon at once", err, took)
	}
}

// TestWaitTimesOutWhileNoDaemonRuns: a wait whose timeout comes before the grace ends
// at its timeout, as a timeout, though no daemon came.
func TestWaitTimesOutWhileNoDaemonRuns(t *testing.T) {
	d, _ := fakeDaemon(t, "exit 1")
	timeout := 300 * time.Millisecond
	start := time.Now()
	res, err := d.Wait(context.Background(), "w1", "", timeout)
	took := time.Since(start)
	if err != nil || res.FinalState != outcome.Timeout || took < timeout || took >= snapshotGrace/2 {
		t.Errorf("wait --timeout %s with no daemon: %+v, %v after %s; want a timeout after %s", timeout, res, err, took, timeout)
	}
	if !strings.Contains(res.Summary, "paneherd start") {
		t.Errorf("its summary %q does not say how to start the daemon", res.Summary)
	}
}

// TestWaitFailsAtOnceOnWhatNoRevivalMends: a runtime directory not to be trusted, or a
// snapshot that does not decode, is no daemon being revived: the wait fails at once,
// saying so, rather than after the grace.
func TestWaitFailsAtOnceOnWhatNoRevivalMends(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, d Daemon, bin string)
	}{
		{"untrusted runtime directory", "may be written by others", func(t *testing.T, d Daemon, _ string) {
			if err := os.Mkdir(d.Dir.Runtime, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(d.Dir.Runtime, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbled snapshot", "read snapshot", func(t *testing.T, d Daemon, bin string) {
			t.Setenv("HERD_FAKE_SNAPSHOT", "not json")
			startFake(t, d, bin)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, bin := fakeDaemon(t, "exec "+os.Args[0]+" -test.run=^TestHelperDaemon$")
			tc.make(t, d, bin)
			start := time.Now()
			_, err := d.Wait(context.Background(), "w1", "", time.Minute)
			if took := time.Since(start); err == nil || !strings.Contains(err.Error(), tc.want) || took >= snapshotGrace/2 {
				t.Errorf("wait: %v after %s; want an error saying %q at once", err, took, tc.want)
			}
		})
	}
}

// An agent that quit (EXITED: its pane lives on) will not finish the wait: it ends it, as
// a crash does, whether or not the agent worked first; a worker created exits so too.
func TestWaitEndsWhenTheAgentExits(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	for _, sawBusy := range []bool{false, true} {
		busy := sawBusy
		if got := judge(wire.Pane{State: string(state.Exited), Since: start.Add(time.Second)}, "", start, &busy); got != outcome.Crashed {
			t.Errorf("waiting (BUSY seen: %v) on an agent that exited: %q, want %q", sawBusy, got, outcome.Crashed)
		}
	}
	if got := startedOutcome(state.Exited); got != outcome.Crashed {
		t.Errorf("a worker created whose agent exited: %q, want %q", got, outcome.Crashed)
	}
}
