package notify

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc/proctest"
)

// A program that sleeps past its timeout is killed, and so is what it started: Send
// returns soon after the deadline, and no process of it is left.
func TestCommandTimeoutKillsTheProgramAndWhatItStarted(t *testing.T) {
	record := t.TempDir()
	t.Setenv("RECORD", record)
	standIn(t, "paneherd-sleeper", `sleep 60 &
echo $! > "$RECORD/child.tmp" && mv "$RECORD/child.tmp" "$RECORD/child"
echo $$ > "$RECORD/self.tmp" && mv "$RECORD/self.tmp" "$RECORD/self"
wait
`)
	c, err := NewCommand("paneherd-sleeper", time.Second, "h")
	if err != nil {
		t.Fatal(err)
	}
	reaper := proctest.NewReaper(t)
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Send(context.Background(), TestNotification()) }()
	pids := waitPids(t, reaper, record, "self", "child")
	var sendErr error
	select {
	case sendErr = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Send did not return 10 s after a 1 s timeout")
	}
	if took := time.Since(start); took > time.Second+waitDelay+2*time.Second {
		t.Errorf("Send took %s with a 1 s timeout", took)
	}
	if sendErr == nil || !strings.Contains(sendErr.Error(), "paneherd-sleeper did not finish within") ||
		!strings.Contains(sendErr.Error(), "@paneherd-notify-command-timeout") {
		t.Errorf("Send: %v, want the timeout and what to do", sendErr)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for proctest.Running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs after the timeout", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// waitPids reads the pids the program wrote into dir under names, handing each to the
// reaper as soon as it is known.
func waitPids(t *testing.T, reaper *proctest.Reaper, dir string, names ...string) []int {
	t.Helper()
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for _, name := range names {
		for {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err == nil {
				pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				reaper.Add(pid)
				pids = append(pids, pid)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the program did not write %s", name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return pids
}
