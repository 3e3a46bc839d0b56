package e2e

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// quietLimit is how soon after Enter a quiet command must show BUSY here. The aim is
// 300 ms (what an idle machine does: docs/performance.md#latencies-end-to-end); the bound
// leaves room for a loaded one, and is still well short of the 5 s reconcile of control
// mode, or of the 10 s tick the poller runs with here.
const quietLimit = 1500 * time.Millisecond

// A command typed at a bash prompt that prints nothing shows BUSY within moments of
// Enter, whichever observer watches, holds it while the command runs, and is READY
// again once the command has ended and the prompt settled. PANEHERD_QUIET_RUNS=20 runs
// it 20 times per observer and logs the delays (go test -v).
func TestQuietCommandShowsBusy(t *testing.T) {
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("PANEHERD_QUIET_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for _, observer := range []string{"control", "poll"} {
		t.Run(observer, func(t *testing.T) {
			r := newRig(t)
			pane := r.tmux.NewSession("q", "exec bash --norc --noprofile")
			r.waitFor("the prompt", 15*time.Second, func() bool { return atPrompt(r.tmux.Run("capture-pane", "-p", "-t", pane)) })
			r.setOptions("observer", observer)
			r.start("--tick", "10s") // the poller's tick alone would show it 10 s late
			r.waitState(pane, "READY")
			var delays []time.Duration
			for range runs {
				delays = append(delays, quietRun(r, pane, 2*time.Second))
			}
			slices.Sort(delays)
			t.Logf("%s: Enter to BUSY in status --json over %d runs: min %v, median %v, max %v",
				observer, runs, delays[0], delays[len(delays)/2], delays[len(delays)-1])

			// A program in front that asks for a password is a question, not a command
			// running: NEEDS_CONFIRMATION, as the screen says.
			r.tmux.Run("send-keys", "-t", pane, "-l", "printf 'Password: '; head -n1")
			r.tmux.Run("send-keys", "-t", pane, "Enter")
			r.waitState(pane, "NEEDS_CONFIRMATION")
			r.tmux.Run("send-keys", "-t", pane, "C-c")
			r.waitState(pane, "READY")
		})
	}
}

// quietRun types `sleep` at the prompt and presses Enter; it fails unless the pane shows
// BUSY within quietLimit and holds it until the command has ended, then READY. It
// returns the delay from Enter to BUSY.
func quietRun(r *rig, pane string, length time.Duration) time.Duration {
	r.t.Helper()
	r.tmux.Run("send-keys", "-t", pane, "-l", "sleep "+strconv.FormatFloat(length.Seconds(), 'f', -1, 64))
	// A person presses Enter at no particular moment of the observer's clock; right
	// after the look that showed READY, the delays would all be those of one phase.
	// (This spreads them; it waits for nothing.)
	time.Sleep(rand.N(300 * time.Millisecond))
	enter := time.Now()
	r.tmux.Run("send-keys", "-t", pane, "Enter")
	r.waitFor("the quiet command shows BUSY", 10*time.Second, func() bool { return r.status()[pane].State == "BUSY" })
	delay := time.Since(enter)
	if delay > quietLimit {
		r.dump()
		r.t.Fatalf("BUSY %v after Enter, want within %v", delay, quietLimit)
	}
	r.waitFor("READY once the command has ended", 20*time.Second, func() bool {
		p := r.status()[pane]
		if p.State != "BUSY" && time.Since(enter) < length {
			r.dump()
			r.t.Fatalf("%s while the command ran (%v after Enter)", p.State, time.Since(enter))
		}
		return p.State == "READY"
	})
	return delay
}

// atPrompt reports whether a bash without rc files shows its prompt: "bash-5.2$", or
// "bash-5.2#" as root.
func atPrompt(screen string) bool {
	s := strings.TrimSpace(screen)
	return strings.HasSuffix(s, "$") || strings.HasSuffix(s, "#")
}
