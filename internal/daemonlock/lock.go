// Package daemonlock makes sure one daemon runs per tmux server, and lets any process ask
// whether one does without touching the daemon's database.
package daemonlock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// ErrHeld is returned by Acquire when another process holds the lock.
var ErrHeld = errors.New("already running")

// Lock is a POSIX write lock held for the life of the daemon. The kernel drops it when the
// process dies, so a crashed daemon never leaves a stale lock behind. POSIX (fcntl) locks,
// not flock, because F_GETLK lets `status` ask who holds it without taking it: a probe
// that took the lock, even briefly, could make a daemon starting at that instant fail.
type Lock struct{ f *os.File }

// Acquire takes the lock at path without waiting.
func Acquire(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemonlock: open %s: %w", path, err)
	}
	lk := wholeFile(syscall.F_WRLCK)
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		f.Close()
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("%w (pid %d)", ErrHeld, Holder(path))
		}
		return nil, fmt.Errorf("daemonlock: lock %s: %w", path, err)
	}
	// The file's time says when its holder, the daemon running or the last one, started.
	now := time.Now()
	os.Chtimes(path, now, now)
	return &Lock{f: f}, nil
}

// Release drops the lock.
func (l *Lock) Release() error {
	return l.f.Close()
}

// Holder returns the pid of the process holding the lock at path, or 0 when none does.
func Holder(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	// Closing this descriptor would drop a POSIX lock this process held on the file;
	// only the daemon holds one, and the daemon never asks.
	defer f.Close()
	lk := wholeFile(syscall.F_WRLCK)
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil || lk.Type == syscall.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}

func wholeFile(typ int16) syscall.Flock_t {
	return syscall.Flock_t{Type: typ, Whence: io.SeekStart, Start: 0, Len: 0}
}
