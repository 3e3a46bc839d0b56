package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestDemoHeadless runs the README's main command as a newcomer would, minus the terminal:
// every state shows, and nothing is left behind.
func TestDemoHeadless(t *testing.T) {
	env, home := isolatedEnv(t)
	tmp := filepath.Join(home, "tmp")
	os.MkdirAll(tmp, 0o700)
	env = append(env, "TMPDIR="+tmp)
	out, errs, code := runBinary(t, nil, env, "demo", "--headless")
	if code != 0 {
		t.Fatalf("demo --headless: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, st := range []string{"READY]", "BUSY]", "NEEDS_CONFIRMATION]", "ERROR]"} {
		if !strings.Contains(out, st) {
			t.Errorf("no %s in the demo's output:\n%s", st, out)
		}
	}
	if strings.Contains(out, "#[") {
		t.Errorf("tmux styles printed raw:\n%s", out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("demo left files behind: %v", left)
	}
	// The tmux server may take a moment to finish exiting after kill-server returns.
	gone := tmuxtest.Poll(5*time.Second, func() bool {
		return countProcesses("demo-worker") == 0 && countProcesses("paneherd-demo-") == 0
	})
	if !gone {
		t.Errorf("demo processes (workers, tmux server or daemon) still running 5s after the demo")
	}
	tmuxDir := filepath.Join(envValue(env, "TMUX_TMPDIR"), fmt.Sprintf("tmux-%d", os.Getuid()))
	if left, _ := os.ReadDir(tmuxDir); len(left) != 0 {
		t.Errorf("demo left its tmux socket or runtime dir: %v", left)
	}
}

func countProcesses(arg string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), arg) {
			n++
		}
	}
	return n
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// TestDemoAttachedShowsTheBadges runs the demo in a terminal (a pane of a private tmux
// server) and reads what a person sees: while its workers' notifications come and go, the
// badges stay in view.
func TestDemoAttachedShowsTheBadges(t *testing.T) {
	env, home := isolatedEnv(t)
	tmp := filepath.Join(home, "tmp")
	os.MkdirAll(tmp, 0o700)
	term := tmuxtest.New(t)
	cmd := "env"
	for _, kv := range append(env, "TMPDIR="+tmp) {
		cmd += " " + shellQuote(kv)
	}
	term.Run("new-session", "-d", "-s", "term", "-x", "160", "-y", "30", "TMUX= exec "+cmd+" "+shellQuote(binary)+" demo")
	screen := func() string {
		out, _ := term.Server.Run(t.Context(), nil, "capture-pane", "-p", "-t", "term")
		return out
	}
	if !tmuxtest.Poll(30*time.Second, func() bool { return strings.Contains(screen(), ": READY]") }) {
		t.Fatalf("no badges within 30 s:\n%s", screen())
	}
	notified, hidden := 0, 0
	// Its workers fail every few seconds; a loaded machine may space them out more.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && notified < 5 {
		s := screen()
		if strings.Contains(s, "paneherd: ") {
			notified++
			if !strings.Contains(s, ": READY]") && !strings.Contains(s, ": BUSY]") && !strings.Contains(s, ": ERROR]") {
				hidden++
				t.Logf("a notification hides the badges:\n%s", s)
			}
		}
		time.Sleep(200 * time.Millisecond) // sampling what a person sees, not waiting for a condition
	}
	if notified == 0 {
		t.Errorf("no notification seen in 60 s of the demo")
	}
	if hidden > 0 {
		t.Errorf("%d of %d screens with a notification showed no badge", hidden, notified)
	}
	term.Run("send-keys", "-t", "term", "C-b", "d") // leave the demo: it ends
	if !tmuxtest.Poll(20*time.Second, func() bool { return countProcesses("demo-worker") == 0 }) {
		t.Errorf("the demo's workers still run after it was left")
	}
}
