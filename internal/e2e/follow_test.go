package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// heard is one line of a follow stream and when it arrived.
type heard struct {
	line wire.FollowLine
	raw  string
	at   time.Time
}

// follower is a running `paneherd follow --json` and the lines it writes.
type follower struct {
	cmd   *exec.Cmd
	out   io.ReadCloser
	lines chan heard
	done  chan error
}

// startFollow runs follow against the rig's server; the test ends it.
func startFollow(t *testing.T, r *rig, args ...string) *follower {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"-S", r.tmux.Server.Socket, "follow", "--json"}, args...)...)
	cmd.Env = r.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &follower{cmd: cmd, out: out, lines: make(chan heard, 100), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			h := heard{raw: sc.Text(), at: time.Now()}
			if err := json.Unmarshal(sc.Bytes(), &h.line); err != nil {
				t.Errorf("follow wrote a line that is not JSON: %q", sc.Text())
			}
			f.lines <- h
		}
		close(f.lines)
	}()
	go func() { f.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-f.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("follow's stderr: %s", stderr)
		}
	})
	return f
}

// next is the next line, within timeout.
func (f *follower) next(t *testing.T, timeout time.Duration) heard {
	t.Helper()
	select {
	case h, ok := <-f.lines:
		if !ok {
			t.Fatalf("follow ended its stream")
		}
		return h
	case <-time.After(timeout):
		t.Fatalf("no line from follow within %v", timeout)
	}
	return heard{}
}

// twoScreens is a pane command that shows the screen first, and then, once Enter is
// typed, the screen then.
func twoScreens(first, then string) string {
	return strings.Replace(showCommand(first), "exec sleep 100000", "read x; clear; "+showCommand(then), 1)
}

// TestFollowStreamsSnapshotChangesAndHeartbeats: the first line is the whole snapshot
// with the protocol's version and paneherd's; a state change on a real pane is a change
// line soon after the daemon publishes it; while nothing changes a heartbeat comes each
// heartbeat, no more often; and the stream ends, exit 0, when its reader closes it.
func TestFollowStreamsSnapshotChangesAndHeartbeats(t *testing.T) {
	r := newRig(t)
	id := r.tmux.NewSession("fx", twoScreens(fixture(t, "claude/06-READY-after-short-answer.txt"),
		fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")))
	r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", "claude")
	// A named window keeps its name: tmux's automatic name follows the command in front
	// (awk, then bash), a change of its own after the READY this test waits for.
	r.tmux.Run("rename-window", "-t", id, "fx")
	r.start()
	r.waitFor("the pane READY", 20*time.Second, func() bool { return r.status()[id].State == "READY" })

	const beat = 300 * time.Millisecond
	f := startFollow(t, r, "--heartbeat", beat.String())
	first := f.next(t, 10*time.Second)
	l := first.line
	if l.Type != wire.FollowSnapshot || l.Protocol != wire.FollowProtocol || l.Version == "" || l.HeartbeatMS != beat.Milliseconds() {
		t.Fatalf("first line %s: want a snapshot of protocol %d with the version and a heartbeat of %v", first.raw, wire.FollowProtocol, beat)
	}
	if len(l.Panes) != 1 || l.Panes[0].ID != id || l.Panes[0].State != "READY" {
		t.Fatalf("first line's panes: %+v", l.Panes)
	}

	// Idle: heartbeats, a beat apart.
	last := first.at
	for range 3 {
		h := f.next(t, 5*time.Second)
		if h.line.Type != wire.FollowHeartbeat {
			t.Fatalf("idle, follow wrote %s; want a heartbeat", h.raw)
		}
		if gap := h.at.Sub(last); gap < beat*3/4 {
			t.Errorf("a heartbeat %v after the line before; want one a beat (%v) apart", gap, beat)
		}
		last = h.at
	}

	r.tmux.Run("send-keys", "-t", id, "Enter")
	var change heard
	for deadline := time.Now().Add(20 * time.Second); change.line.Type != wire.FollowChange; {
		change = f.next(t, time.Until(deadline))
	}
	if len(change.line.Panes) != 1 || change.line.Panes[0].State != "NEEDS_CONFIRMATION" {
		t.Fatalf("change line %s: want the pane NEEDS_CONFIRMATION", change.raw)
	}
	// At is when the daemon published it.
	lag := change.at.Sub(change.line.At)
	t.Logf("change line %v after the daemon published it", lag)
	if lag > time.Second {
		t.Errorf("the change line came %v after the daemon published it; want well under a second", lag)
	}

	f.out.Close()
	select {
	case err := <-f.done:
		if err != nil {
			t.Errorf("follow exited with %v when its reader went; want 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("follow still runs 10s after its reader closed the stream")
	}
}

// TestFollowStartsADaemonAndEndsOnSIGHUP: a server with no daemon gets one, as mcp does;
// SIGHUP (the session's terminal gone) ends the stream cleanly.
func TestFollowStartsADaemonAndEndsOnSIGHUP(t *testing.T) {
	r := newRig(t)
	r.tmux.NewSession("fx", "exec sleep 100000")
	t.Cleanup(func() { r.paneherd("stop") })
	f := startFollow(t, r)
	if l := f.next(t, 20*time.Second).line; l.Type != wire.FollowSnapshot || len(l.Panes) != 1 {
		t.Fatalf("first line %+v: want the snapshot of one pane", l)
	}
	if out, _, code := r.paneherd("status", "--json"); code != 0 {
		t.Fatalf("no daemon runs after follow began: %s", out)
	}
	f.cmd.Process.Signal(syscall.SIGHUP)
	select {
	case err := <-f.done:
		if err != nil {
			t.Errorf("follow exited with %v on SIGHUP; want 0", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("follow still runs 5s after SIGHUP")
	}
}
