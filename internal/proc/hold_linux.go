package proc

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Held is a set of processes held by pidfd: each is the process it was when taken, even
// once reparented, and never another that took its pid since. Release lets them go. A
// nil Held holds nothing.
type Held struct {
	fds map[int]int // pid -> pidfd
}

// HoldTree holds root, every process below it and, when root leads a session (a
// terminal's first process does), every process of that session: orphans keep their
// session. Never this process or those below it. Hold while root still runs: a process
// leaves root's tree when its parent exits (what a program started in a session of its
// own, a daemon, is found only through the tree), and root's pid names its session only
// while root or a process of the session lives.
func HoldTree(root int) (*Held, error) {
	t, err := Scan()
	if err != nil {
		return nil, err
	}
	procs := t.Descendants(root)
	if procs == nil {
		return nil, fmt.Errorf("proc: hold the tree of %d: %w", root, ErrNoProcess)
	}
	if procs[0].Session == root {
		for _, p := range t.procs {
			if p.Session == root && p.PID != root {
				procs = append(procs, p)
			}
		}
	}
	h := &Held{fds: map[int]int{}}
	skip := ours(t)
	for _, p := range procs {
		if !skip[p.PID] {
			h.hold(p.PID)
		}
	}
	return h, nil
}

// ours is this process and those below it, never held: a daemon started from within
// the tree it ends (an agent's `paneherd mcp` may start it) must not end itself.
func ours(t Table) map[int]bool {
	skip := map[int]bool{}
	for _, p := range t.Descendants(os.Getpid()) {
		skip[p.PID] = true
	}
	return skip
}

func (h *Held) hold(pid int) {
	if _, ok := h.fds[pid]; ok {
		return
	}
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		h.fds[pid] = fd
	}
}

// End asks every held process still running to end (SIGTERM), waits up to grace for them,
// kills those left (SIGKILL) and waits up to grace again for that, then releases the set.
// It returns how many were running.
func (h *Held) End(grace time.Duration) int {
	if h == nil {
		return 0
	}
	defer h.Release()
	var live []int
	for _, fd := range h.fds {
		if !ended(fd, 0) && unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0) == nil {
			live = append(live, fd)
		}
	}
	var stubborn []int
	deadline := time.Now().Add(grace)
	for _, fd := range live {
		if !ended(fd, time.Until(deadline)) && unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
			stubborn = append(stubborn, fd)
		}
	}
	deadline = time.Now().Add(grace)
	for _, fd := range stubborn {
		ended(fd, time.Until(deadline))
	}
	return len(live)
}

// Release closes the pidfds; the processes run on.
func (h *Held) Release() {
	if h == nil {
		return
	}
	for pid, fd := range h.fds {
		unix.Close(fd)
		delete(h.fds, pid)
	}
}

// ended waits up to wait for the pidfd's process to exit: the kernel makes the pidfd
// readable then (a zombie has ended).
func ended(fd int, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(max(time.Until(deadline), 0)/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue // the Go runtime's own signals interrupt a poll
		}
		return err == nil && n > 0
	}
}
