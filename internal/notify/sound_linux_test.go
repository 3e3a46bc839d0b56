//go:build linux

package notify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc/proctest"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestSoundStopsAPlayerThatHangs: a player that never ends is stopped when the send's
// context ends, and Send returns then. The context ends once the player runs, however
// long a loaded machine takes to start it.
func TestSoundStopsAPlayerThatHangs(t *testing.T) {
	reaper := proctest.NewReaper(t)
	r := newPlayerRig(t, true)
	pidFile := filepath.Join(r.bin, "pid")
	r.add("pw-play", "echo $$ > '"+pidFile+".new'; mv '"+pidFile+".new' '"+pidFile+"'\nexec sleep 60")
	s, err := NewSound("on", "linux", tmux.Server{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sent := make(chan error, 1)
	go func() { sent <- s.Send(ctx, Notification{Event: Failed}) }()
	var pid int
	if !tmuxtest.Poll(10*time.Second, func() bool {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	}) {
		t.Fatal("the player did not start within 10s")
	}
	reaper.Add(pid)
	cancel()
	start := time.Now()
	select {
	case err = <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("Send still waits for the player 10s after its context ended")
	}
	if took := time.Since(start); !errors.Is(err, context.Canceled) || took > 3*time.Second {
		t.Errorf("Send = %v %s after its context ended; want the context's end, soon", err, took)
	}
	if proctest.Running(pid) {
		t.Errorf("the player (pid %d) still runs", pid)
	}
}
