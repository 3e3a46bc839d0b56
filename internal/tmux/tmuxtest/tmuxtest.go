// Package tmuxtest runs a private tmux server for tests.
package tmuxtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// Handle is a running private tmux server.
type Handle struct {
	// Server addresses the private server by its socket path, so it works
	// whatever TMUX and TMUX_TMPDIR say in the test's own environment.
	Server tmux.Server
	// Dir is the server's TMUX_TMPDIR.
	Dir string
	// Home is the HOME of the server and so of its panes: an empty directory, so a
	// pane's shell runs none of the developer's rc files (one that ran pyenv init took a
	// minute to draw its prompt on a loaded machine).
	Home string

	t      testing.TB
	socket []string // how the tmux client names the server: -L test, or -S path
}

// New starts a tmux server with no configuration (-f /dev/null) in a fresh
// short TMUX_TMPDIR and kills it when the test ends.
func New(t testing.TB) *Handle {
	t.Helper()
	return start(t, "")
}

// NewAt is New with the server's socket at Dir/name (tmux -S) rather than tmux's own
// place: a name of some 80 bytes makes a socket path too long for paneherd's files to
// sit beside it.
func NewAt(t testing.TB, name string) *Handle {
	t.Helper()
	return start(t, name)
}

func start(t testing.TB, name string) *Handle {
	t.Helper()
	// Not t.TempDir(): unix socket paths over ~100 bytes fail, and test
	// names make t.TempDir() paths long.
	dir, err := os.MkdirTemp("/tmp", "ph")
	if err != nil {
		t.Fatalf("tmuxtest: make dir: %v", err)
	}
	h := &Handle{Dir: dir, Home: filepath.Join(dir, "home"), t: t, socket: []string{"-L", "test"}}
	if name != "" {
		h.socket = []string{"-S", filepath.Join(dir, name)}
	}
	t.Cleanup(h.close)
	if err := os.Mkdir(h.Home, 0o700); err != nil {
		t.Fatalf("tmuxtest: make home: %v", err)
	}
	// exit-empty off keeps the server up before the first session exists. -u as every
	// paneherd client (tmux.Server.Args): the test may run without a UTF-8 locale.
	boot := exec.Command("tmux", append(append([]string{"-u"}, h.socket...), "-f", "/dev/null",
		"start-server", ";", "set-option", "-s", "exit-empty", "off", ";",
		"display-message", "-p", "#{socket_path}")...)
	boot.Env = h.Env()
	out, err := boot.Output()
	if err != nil {
		t.Fatalf("tmuxtest: start server: %v: %s", err, stderrOf(err))
	}
	h.Server = tmux.Server{Socket: strings.TrimSpace(string(out))}
	return h
}

func (h *Handle) close() {
	// The error is ignored: a test may have killed the server itself.
	kill := exec.Command("tmux", append(append([]string{"-u"}, h.socket...), "kill-server")...)
	kill.Env = h.Env()
	_ = kill.Run()
	// The server does not wait for its panes: a shell may still be writing its history
	// into its HOME (Home, or Dir for a test's own shell) as it exits on the SIGHUP.
	var err error
	if !Poll(10*time.Second, func() bool { err = os.RemoveAll(h.Dir); return err == nil }) {
		h.t.Errorf("tmuxtest: remove %s: %v", h.Dir, err)
	}
}

func stderrOf(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return strings.TrimSpace(string(exit.Stderr))
	}
	return ""
}

// Env is the test's environment adjusted for processes that should find
// this server by default: TMUX_TMPDIR set, TMUX unset, HOME the server's. Use it
// as exec.Cmd.Env; a caller that wants another HOME appends its own.
func (h *Handle) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_TMPDIR=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "TMUX_TMPDIR="+h.Dir, "HOME="+h.Home)
}

// Run runs a tmux command against the server and returns its stdout without
// the final newline; any error fails the test.
func (h *Handle) Run(args ...string) string {
	h.t.Helper()
	out, err := h.Server.Run(context.Background(), nil, args...)
	if err != nil {
		h.t.Fatalf("tmuxtest: %v", err)
	}
	return strings.TrimSuffix(out, "\n")
}

// NewSession creates a detached 120x40 session running cmd (a shell
// command; "" for the default shell) and returns its pane id.
func (h *Handle) NewSession(name, cmd string) string {
	h.t.Helper()
	args := []string{"new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-P", "-F", "#{pane_id}"}
	return h.Run(withCommand(args, cmd)...)
}

// NewWindow adds a window to target (a session) running cmd and returns
// its pane id. tmux expands formats in name: "#" must be written "##".
func (h *Handle) NewWindow(target, name, cmd string) string {
	h.t.Helper()
	args := []string{"new-window", "-d", "-t", target + ":", "-n", tmux.LiteralArg(name), "-P", "-F", "#{pane_id}"}
	return h.Run(withCommand(args, cmd)...)
}

// Split splits the pane target and returns the new pane's id.
func (h *Handle) Split(target, cmd string) string {
	h.t.Helper()
	args := []string{"split-window", "-d", "-t", target, "-P", "-F", "#{pane_id}"}
	return h.Run(withCommand(args, cmd)...)
}

func withCommand(args []string, cmd string) []string {
	if cmd == "" {
		return args
	}
	return append(args, tmux.LiteralArg(cmd))
}

// WaitFor polls cond until it holds, failing the test after timeout.
// Tests synchronise with this, never with fixed sleeps.
func WaitFor(t testing.TB, timeout time.Duration, cond func() bool) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("tmuxtest: condition not met within %v", timeout)
	}
}

// Poll polls cond until it holds or timeout passes, and reports whether it
// held; for conditions that may legitimately never hold.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// WithoutUTF8 is the server as a client that passes no -u and has no UTF-8 locale sees
// it: tmux sanitises what it prints to such a client (tmux.ErrSanitised). Every command
// that reads no stdin runs through a client started so.
func (h *Handle) WithoutUTF8() tmux.Server {
	return tmux.Server{Socket: h.Server.Socket, Via: withoutUTF8{h}}
}

type withoutUTF8 struct{ h *Handle }

func (c withoutUTF8) Command(ctx context.Context, args ...string) (string, bool, error) {
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", c.h.Server.Socket}, args...)...)
	for _, kv := range c.h.Env() {
		if !strings.HasPrefix(kv, "LANG=") && !strings.HasPrefix(kv, "LC_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out) + string(exit.Stderr), true, nil
	}
	return string(out), false, err
}
