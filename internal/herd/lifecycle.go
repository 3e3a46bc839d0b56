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
// the pid stopped, or 0 when none ran. A daemon stopped so leaves the Stopped mark; with
// none running Stop leaves it itself, so one that had crashed is not revived either.
func (d Daemon) Stop(ctx context.Context) (int, error) {
	pid := d.PID()
	if pid <= 0 {
		if !exists(d.Server.SocketPath()) {
			return 0, nil // no server: nothing to mark, and no directory to leave behind
		}
		return 0, d.markStopped()
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

func (d Daemon) markStopped() error {
	if err := d.Dir.Create(); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	if err := os.WriteFile(d.Dir.Stopped(), nil, 0o600); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}

// Tell hands the daemon a hook event; it never waits. The error wraps
// hooks.ErrNoDaemon when none listens.
func (d Daemon) Tell(e hooks.Event) error {
	if err := d.Dir.Trusted(); err != nil {
		return err
	}
	return hooks.Send(d.Dir.Socket(), e)
}

// reviveEvery bounds how often Revive starts a daemon that dies young: one that dies at
// once (a bug, a database it cannot open) must not be started again at every status-bar
// redraw. A variable for the tests, which must not depend on how fast the machine is.
var reviveEvery = 10 * time.Second

// Revive starts the daemon again if it died without being stopped on purpose (see
// paths.Dir.Stopped): the status bar and the hooks call it. A daemon that had run for
// reviveEvery is revived at once; one that died younger, or could not be started, at
// most once every reviveEvery, whoever asks. It returns the running daemon's pid, or 0
// when none runs (stopped, or not to be revived yet).
func (d Daemon) Revive(ctx context.Context, binary string) (int, error) {
	if pid := d.PID(); pid != 0 {
		return pid, nil
	}
	// No server (it is exiting, or its directory is being removed): nothing to revive,
	// and no directory to create.
	if !exists(d.Server.SocketPath()) || exists(d.Dir.Stopped()) || recent(modTime(d.Dir.Revived())) {
		return 0, nil
	}
	young := recent(modTime(d.Dir.Lock())) // daemonlock.Acquire dates it
	// Claimed before starting, so the hooks and bars asking meanwhile (a SIGKILL fires a
	// client-detached hook per control client) leave the start to the first.
	if err := d.Dir.Create(); err != nil {
		return 0, err
	}
	if claimed, err := claim(d.Dir.Revived()); !claimed {
		return 0, err
	}
	pid, err := d.Start(ctx, binary)
	if err == nil && !young {
		os.Remove(d.Dir.Revived())
	}
	return pid, err
}

func recent(t time.Time) bool { return time.Since(t) < reviveEvery }

func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// claim takes the right to start a daemon for reviveEvery: only one of several asking at
// once gets it (a lock held while it looks and writes), and no one else until the claim
// is older than reviveEvery. An empty file is no claim (Revive removes a claim whose
// daemon lived).
func claim(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("revive: %w", err)
	}
	defer f.Close() // drops the lock
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false, nil // another is claiming right now
	}
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("revive: %w", err)
	}
	if fi.Size() > 0 && recent(fi.ModTime()) {
		return false, nil
	}
	if _, err := f.WriteAt([]byte("claimed\n"), 0); err != nil {
		return false, fmt.Errorf("revive: %w", err)
	}
	now := time.Now()
	return true, os.Chtimes(path, now, now)
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
