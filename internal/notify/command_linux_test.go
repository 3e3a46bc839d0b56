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

// A program that exits 0 but leaves a process behind holding its output open has
// delivered, and what it left is killed: a notification's command leaves nothing running
// in the daemon's name.
func TestCommandLeftoversAreKilledAfterASuccess(t *testing.T) {
	for _, tt := range []struct{ name, leftover string }{
		{"holding its output open", "sleep 60 &"},
		{"with its output closed", "sleep 60 >/dev/null 2>&1 &"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			record := t.TempDir()
			t.Setenv("RECORD", record)
			standIn(t, "paneherd-forker", tt.leftover+`
echo $! > "$RECORD/child.tmp" && mv "$RECORD/child.tmp" "$RECORD/child"
echo sent
`)
			c, err := NewCommand("paneherd-forker", 30*time.Second, "h")
			if err != nil {
				t.Fatal(err)
			}
			reaper := proctest.NewReaper(t)
			start := time.Now()
			if err := c.Send(context.Background(), TestNotification()); err != nil {
				t.Errorf("Send: %v; want delivered (the program exited 0)", err)
			}
			if took := time.Since(start); took > waitDelay+2*time.Second {
				t.Errorf("Send took %s: it waited for the leftover", took)
			}
			child := waitPids(t, reaper, record, "child")[0]
			deadline := time.Now().Add(5 * time.Second)
			for proctest.Running(child) {
				if time.Now().After(deadline) {
					t.Fatalf("the program's leftover %d still runs after Send returned", child)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
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
