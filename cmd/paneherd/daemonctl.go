package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/paths"
)

// daemonWait bounds how long start and stop wait for the daemon to come up or go away.
const daemonWait = 10 * time.Second

func runStart(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("usage: paneherd start\n", "start takes no arguments")
	}
	pid, err := startDaemon(ctx, e)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "paneherd daemon running (pid %d) for %s\n", pid, e.server.SocketPath())
	return nil
}

func runStop(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("usage: paneherd stop\n", "stop takes no arguments")
	}
	pid, err := stopDaemon(ctx, e)
	if err != nil {
		return err
	}
	if pid == 0 {
		fmt.Fprintf(e.stdout, "no paneherd daemon was running for %s\n", e.server.SocketPath())
	} else {
		fmt.Fprintf(e.stdout, "stopped paneherd daemon (pid %d)\n", pid)
	}
	return nil
}

func runRestart(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("usage: paneherd restart\n", "restart takes no arguments")
	}
	if _, err := stopDaemon(ctx, e); err != nil {
		return err
	}
	return runStart(ctx, e, nil)
}

// startDaemon starts `paneherd watch` in the background, detached from the terminal and
// from tmux's job, unless one runs already, and waits until a daemon holds the lock. Two
// starts racing both launch a daemon; one wins the lock, the other exits "already
// running", and both starts report the winner.
func startDaemon(ctx context.Context, e *env) (int, error) {
	dir, err := e.stateDir()
	if err != nil {
		return 0, err
	}
	if pid := daemonlock.Holder(dir.Lock()); pid != 0 {
		return pid, nil
	}
	if err := dir.Create(); err != nil {
		return 0, err
	}
	exited, err := launch(e, dir)
	if err != nil {
		return 0, err
	}
	return awaitHolder(ctx, dir, exited)
}

// launch runs the daemon in its own session with no terminal; its stderr (warnings such
// as a database moved aside) goes to a file beside its log.
func launch(e *env, dir paths.Dir) (<-chan error, error) {
	exe, err := selfPath()
	if err != nil {
		return nil, err
	}
	errFile, err := os.OpenFile(dir.Stderr(), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	defer errFile.Close()
	cmd := exec.Command(exe, "-S", e.server.SocketPath(), "watch")
	cmd.Stderr = errFile
	cmd.Dir = "/" // hold no directory of the person's busy
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited, nil
}

// awaitHolder waits until some daemon holds the lock and has published its first
// snapshot, so `status` works the moment start returns. Ours exiting first is fine when
// it lost the race to another daemon; otherwise its stderr says why.
func awaitHolder(ctx context.Context, dir paths.Dir, exited <-chan error) (int, error) {
	deadline := time.Now().Add(daemonWait)
	for time.Now().Before(deadline) {
		if pid := daemonlock.Holder(dir.Lock()); pid != 0 && exists(dir.Snapshot()) {
			return pid, nil
		}
		select {
		case err := <-exited:
			if daemonlock.Holder(dir.Lock()) != 0 {
				exited = nil // another daemon won the race; wait for its snapshot
				continue
			}
			msg, _ := os.ReadFile(dir.Stderr())
			return 0, fmt.Errorf("the daemon exited at once (%v): %s", err, firstLine(msg))
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("the daemon did not start within %s; see %s", daemonWait, dir.Log())
}

// stopDaemon sends SIGTERM to the daemon and waits until it has released its lock. It
// returns the pid stopped, or 0 when none ran.
func stopDaemon(ctx context.Context, e *env) (int, error) {
	dir, err := e.stateDir()
	if err != nil {
		return 0, err
	}
	pid := daemonlock.Holder(dir.Lock())
	if pid <= 0 {
		return 0, nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return 0, fmt.Errorf("stop: signal pid %d: %w", pid, err)
	}
	deadline := time.Now().Add(daemonWait)
	for daemonlock.Holder(dir.Lock()) != 0 {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("stop: pid %d still running %s after SIGTERM", pid, daemonWait)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return pid, nil
}

// runHook is what tmux hooks run: hand the event to the daemon and return at once. It is
// silent whatever happens: a hook's output would land in the user's pane.
func runHook(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("usage: paneherd hook EVENT [ARGS...]\n", "hook needs an event")
	}
	dir, err := e.stateDir()
	if err != nil {
		return nil
	}
	hooks.Send(dir.Socket(), hooks.Event{Name: args[0], Args: args[1:]})
	return nil
}

func firstLine(b []byte) string {
	for i, c := range b {
		if c == '\n' {
			return string(b[:i])
		}
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
