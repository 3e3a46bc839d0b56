package herd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/hooks"
)

// lifeWait bounds how long Start and Stop wait for the daemon to come up or go away.
const lifeWait = 10 * time.Second

// Start starts `binary watch` in the background, detached from the terminal and from
// tmux's job, unless a daemon runs already, and waits until one holds the lock and has
// published its first snapshot, so `status` works the moment Start returns. It returns
// the daemon's pid. Two starts racing both launch a daemon; one wins the lock, the other
// exits "already running", and both starts report the winner.
func (d Daemon) Start(ctx context.Context, binary string) (int, error) {
	if pid := d.PID(); pid != 0 {
		return pid, nil
	}
	if _, err := os.Stat(d.Server.SocketPath()); err != nil {
		return 0, fmt.Errorf("no tmux server runs at %s (start tmux first)", d.Server.SocketPath())
	}
	if err := d.Dir.Create(); err != nil {
		return 0, err
	}
	exited, err := d.launch(binary)
	if err != nil {
		return 0, err
	}
	return d.awaitHolder(ctx, exited)
}

// launch runs the daemon in its own session with no terminal; its stderr (warnings such
// as a database moved aside) goes to a file beside its log.
func (d Daemon) launch(binary string) (<-chan error, error) {
	errFile, err := os.OpenFile(d.Dir.Stderr(), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	defer errFile.Close()
	cmd := exec.Command(binary, "-S", d.Server.SocketPath(), "watch")
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

// awaitHolder waits until some daemon holds the lock and has published its snapshot.
// Ours exiting first is fine when it lost the race to another daemon; otherwise its
// stderr says why.
func (d Daemon) awaitHolder(ctx context.Context, exited <-chan error) (int, error) {
	deadline := time.Now().Add(lifeWait)
	for time.Now().Before(deadline) {
		if pid := d.PID(); pid != 0 && exists(d.Dir.Snapshot()) {
			return pid, nil
		}
		select {
		case err := <-exited:
			if d.PID() != 0 {
				exited = nil // another daemon won the race; wait for its snapshot
				continue
			}
			msg, _ := os.ReadFile(d.Dir.Stderr())
			return 0, fmt.Errorf("the daemon exited at once (%v): %s", err, firstLine(msg))
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("the daemon did not start within %s; see %s", lifeWait, d.Dir.Log())
}

// Stop sends SIGTERM to the daemon and waits until it has released its lock. It returns
// the pid stopped, or 0 when none ran.
func (d Daemon) Stop(ctx context.Context) (int, error) {
	pid := d.PID()
	if pid <= 0 {
		return 0, nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return 0, fmt.Errorf("stop: signal pid %d: %w", pid, err)
	}
	deadline := time.Now().Add(lifeWait)
	for d.PID() != 0 {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("stop: pid %d still running %s after SIGTERM", pid, lifeWait)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return pid, nil
}

// Tell hands the daemon a hook event; it never waits and says nothing if none listens.
func (d Daemon) Tell(e hooks.Event) { hooks.Send(d.Dir.Socket(), e) }

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
