package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
)

// TestAgentRestartedBelowItsOldDialog: an agent's CLI killed at its dialog and started
// again from its shell, below the dialog it left. From the moment the new process is in
// front, before it draws anything, the old dialog is history: the pane is BUSY starting,
// never NEEDS_CONFIRMATION. A dialog the new process draws below it is live.
func TestAgentRestartedBelowItsOldDialog(t *testing.T) {
	// The CLI: a script named claude (the claude pack knows it by its command line) that
	// draws a dialog when asked to, and runs on.
	cli := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\n[ \"$1\" = dialog ] && cat " + shellQuote(fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")) + "\nsleep 100000\n"
	if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	pane := r.tmux.NewSession("main", "bash --norc --noprofile")
	r.start()
	run := func(line string) {
		r.tmux.Run("send-keys", "-t", pane, "-l", line)
		r.tmux.Run("send-keys", "-t", pane, "Enter")
	}

	run(cli + " dialog")
	r.waitState(pane, "NEEDS_CONFIRMATION")
	r.killJob(pane)
	r.waitFor("the shell is back below the dialog", 30*time.Second, func() bool {
		p := r.status()[pane]
		return p.Pack == "shell" && p.State == "READY"
	})

	restarted := time.Now()
	run(cli)
	r.waitFor("the new CLI is BUSY starting", 30*time.Second, func() bool {
		p := r.status()[pane]
		if p.State == "NEEDS_CONFIRMATION" {
			r.dump()
			t.Fatalf("the CLI started again below its old dialog reads it: %+v", p)
		}
		return p.State == "BUSY" && p.Rule == "starting"
	})
	r.waitFor("history holds the start", 30*time.Second, func() bool {
		return len(r.stateChanges(pane, restarted, "starting")) > 0
	})
	if seen := r.stateChanges(pane, restarted, "NEEDS_CONFIRMATION"); len(seen) > 0 {
		t.Errorf("the CLI started again below its old dialog read it for a while: %v", seen)
	}

	r.killJob(pane)
	r.waitFor("the shell is back", 30*time.Second, func() bool { return r.status()[pane].Pack == "shell" })
	run(cli + " dialog")
	r.waitState(pane, "NEEDS_CONFIRMATION")
}

// killJob ends the job the pane's shell runs in front (SIGTERM to its process group) and
// waits until it is gone.
func (r *rig) killJob(pane string) {
	r.t.Helper()
	shell, err := strconv.Atoi(r.tmux.Run("display-message", "-p", "-t", pane, "#{pane_pid}"))
	if err != nil {
		r.t.Fatal(err)
	}
	var job int
	r.waitFor("the shell runs a job", 30*time.Second, func() bool {
		kids, _ := proc.Descendants(shell)
		for _, k := range kids {
			if k.PPID == shell {
				job = k.PID
			}
		}
		return job != 0
	})
	if err := syscall.Kill(-job, syscall.SIGTERM); err != nil {
		r.t.Fatalf("end the job %d: %v", job, err)
	}
	r.waitFor("the job is gone", 30*time.Second, func() bool { return syscall.Kill(job, 0) != nil })
}

// stateChanges lists the pane's state changes since a moment whose detail holds word.
func (r *rig) stateChanges(pane string, since time.Time, word string) []string {
	r.t.Helper()
	out, errs, code := r.paneherd("history", pane, "--json")
	if code != 0 {
		r.t.Fatalf("history: exit %d: %s", code, errs)
	}
	var h struct {
		Entries []struct {
			At     time.Time
			Kind   string
			Detail string
		}
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		r.t.Fatalf("history --json: %v\n%s", err, out)
	}
	var found []string
	for _, e := range h.Entries {
		if e.Kind == "state" && e.At.After(since) && strings.Contains(e.Detail, word) {
			found = append(found, e.Detail)
		}
	}
	return found
}
