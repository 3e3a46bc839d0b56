// Package e2e runs the built paneherd binary against real tmux servers on private sockets.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
)

// binary is the paneherd built once for all tests; recorder stands in for an agent.
var binary, recorder string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "paneherd-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "paneherd")
	recorder = filepath.Join(dir, "keyrecorder")
	for out, pkg := range map[string]string{binary: "github.com/paneherd/paneherd/cmd/paneherd", recorder: "./testdata/keyrecorder"} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: build", pkg, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// rig is one private tmux server plus the environment paneherd runs in: temp HOME and
// XDG dirs, TMUX unset.
type rig struct {
	t      *testing.T
	tmux   *tmuxtest.Handle
	home   string
	env    []string
	daemon *exec.Cmd
	done   chan error
	stderr *lockedBuffer
	viewer *tmuxtest.Handle // a second server whose pane runs a client attached to this one
	// lastShort is the last line short read, so it logs each line once.
	lastShort string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	return rigOn(t, tmuxtest.New(t))
}

// rigOn is newRig on a server the test started itself (tmuxtest.NewAt).
func rigOn(t *testing.T, h *tmuxtest.Handle) *rig {
	t.Helper()
	home := t.TempDir()
	env := append(h.Env(),
		"HOME="+home,
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"PANEHERD_LOG_LEVEL=debug",
	)
	r := &rig{t: t, tmux: h, home: home, env: env}
	t.Cleanup(r.stop)
	return r
}

// paneherd runs the binary against the rig's server and returns stdout, stderr and the
// exit code.
func (r *rig) paneherd(args ...string) (string, string, int) {
	r.t.Helper()
	cmd := exec.Command(binary, append([]string{"-S", r.tmux.Server.Socket}, args...)...)
	cmd.Env = r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		r.t.Fatalf("run paneherd %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// start runs `paneherd watch` in the background with a short tick.
func (r *rig) start(extra ...string) {
	r.t.Helper()
	args := append([]string{"-S", r.tmux.Server.Socket, "watch", "--tick", "200ms"}, extra...)
	r.daemon = exec.Command(binary, args...)
	r.daemon.Env = r.env
	r.stderr = &lockedBuffer{}
	r.daemon.Stderr = r.stderr
	if err := r.daemon.Start(); err != nil {
		r.t.Fatalf("start daemon: %v", err)
	}
	r.done = make(chan error, 1)
	go func(c *exec.Cmd, done chan error) { done <- c.Wait() }(r.daemon, r.done)
	r.waitFor("the daemon publishes a snapshot", 30*time.Second, func() bool {
		_, _, code := r.paneherd("status", "--json")
		return code == 0
	})
}

// stop ends the daemon with SIGTERM and returns its exit error.
func (r *rig) stop() {
	if r.daemon == nil {
		return
	}
	r.daemon.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Errorf("daemon exited with %v after SIGTERM; stderr: %s", err, r.stderr)
		}
	case <-time.After(10 * time.Second):
		r.daemon.Process.Kill()
		<-r.done
		r.t.Errorf("daemon ignored SIGTERM for 10s")
	}
	r.daemon = nil
}

// status returns the panes of `status --json`, by pane id.
func (r *rig) status() map[string]wire.Pane {
	r.t.Helper()
	out, errs, code := r.paneherd("status", "--json")
	if code != 0 {
		r.t.Fatalf("status --json: exit %d: %s", code, errs)
	}
	var s struct{ Panes []wire.Pane }
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		r.t.Fatalf("status --json: %v\n%s", err, out)
	}
	m := map[string]wire.Pane{}
	for _, p := range s.Panes {
		m[p.ID] = p
	}
	return m
}

// waitFor polls cond until it holds; on timeout it dumps the panes, the status and the
// daemon's log, so a failure explains itself.
func (r *rig) waitFor(what string, timeout time.Duration, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			r.dump()
			r.t.Fatalf("timed out after %v waiting until %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *rig) dump() {
	r.t.Helper()
	out, _ := r.tmux.Server.Run(context.Background(), nil, "list-panes", "-a", "-F", "#{pane_id} #{session_name}:#{window_name} #{pane_current_command} dead=#{pane_dead}")
	r.t.Logf("panes:\n%s", out)
	for _, id := range strings.Fields(r.tmux.Run("list-panes", "-a", "-F", "#{pane_id}")) {
		screen, _ := r.tmux.Server.Run(context.Background(), nil, "capture-pane", "-p", "-t", id)
		r.t.Logf("pane %s shows:\n%s", id, strings.TrimRight(screen, "\n"))
	}
	st, errs, _ := r.paneherd("status")
	r.t.Logf("status:\n%s%s", st, errs)
	logs, _ := filepath.Glob(filepath.Join(r.home, "state", "paneherd", "*", "daemon.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		r.t.Logf("%s:\n%s", l, tail(string(b), 60))
	}
	if r.stderr != nil {
		r.t.Logf("daemon stderr: %s", r.stderr)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// fixture returns the path of a captured screen under packs/testdata/fixtures.
func fixture(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "packs", "testdata", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	return p
}

// showCommand is a pane command that draws a captured screen and then sits still. Blank
// lines at the end and the final newline are dropped, so the screen fits a pane of any
// height the way the real program's output would: its bottom stays in view.
func showCommand(path string) string {
	const trim = `{ line[NR] = $0 } END { n = NR; while (n > 0 && line[n] ~ /^[ \t]*$/) n--; ` +
		`for (i = 1; i <= n; i++) printf "%s%s", line[i], (i < n ? "\n" : "") }`
	return fmt.Sprintf("awk '%s' %s; exec sleep 100000", trim, shellQuote(path))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lockedBuffer is the daemon's stderr: exec copies into it from its own goroutine while
// the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
