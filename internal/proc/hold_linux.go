package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
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
// terminal's first process does), every process of that session and those below them:
// orphans keep their session. Never this process or those below it. Hold while root
// still runs: a process leaves root's tree when its parent exits (what a program started
// in a session of its own, a daemon, is found only through the tree).
func HoldTree(root int, confirmed func() bool) (*Held, error) {
	h, start, err := pin(root, confirmed)
	if err != nil {
		return nil, fmt.Errorf("proc: hold the tree of %d: %w", root, err)
	}
	t, err := Scan()
	if err != nil {
		h.Release()
		return nil, err
	}
	procs := t.Descendants(root)
	if procs == nil || procs[0].Start != start {
		// Root exited after it was pinned: the table's tree is no longer its own.
		h.Release()
		return nil, fmt.Errorf("proc: hold the tree of %d: %w", root, ErrNoProcess)
	}
	if procs[0].Session == root {
		procs = append(procs, t.sessionTrees(root)...)
	}
	h.holdAll(t, procs)
	return h, nil
}

// pin holds root alone. Its pid came from elsewhere (tmux) and may be another process's
// by now: the pidfd is opened first, then confirmed says whether root is still the
// process meant, so the pidfd holds that one.
func pin(root int, confirmed func() bool) (*Held, uint64, error) {
	start, err := startTime(root)
	h := &Held{fds: map[int]int{}}
	if err != nil || !h.hold(Process{PID: root, Start: start}) {
		return nil, 0, ErrNoProcess
	}
	if !confirmed() {
		h.Release()
		return nil, 0, ErrNotConfirmed
	}
	return h, start, nil
}

// HoldSession holds what is left of the session sid once its leader has exited (a dead
// pane's process: tmux gives its pid), and the processes below them. A session id stays
// taken while a process of the session lives, and so does its pid: those found are the
// leader's, whether it has been reaped or is a zombie still (tmux may call a pane dead
// before it reaps its process; seen for seconds). A process that runs with that pid
// means the session ended and its pid was reused: nothing is held.
func HoldSession(sid int) (*Held, error) {
	t, err := Scan()
	if err != nil {
		return nil, err
	}
	h := &Held{fds: map[int]int{}}
	// Session 0 is the kernel's threads'.
	if leader, there := t.procs[sid]; sid > 0 && (!there || leader.Zombie) {
		h.holdAll(t, t.sessionTrees(sid))
	}
	return h, nil
}

// sessionTrees is every process of the session sid and every process below one.
func (t Table) sessionTrees(sid int) []Process {
	var out []Process
	for _, p := range t.procs {
		if p.Session == sid {
			out = append(out, t.Descendants(p.PID)...)
		}
	}
	return out
}

// holdAll holds procs but this process and those below it, let go if held already (a
// root): a daemon started from within the tree it ends (an agent's `paneherd mcp` may
// start it) must not end itself.
func (h *Held) holdAll(t Table, procs []Process) {
	ours := map[int]bool{}
	for _, p := range t.Descendants(os.Getpid()) {
		ours[p.PID] = true
	}
	for _, p := range procs {
		if !ours[p.PID] {
			h.hold(p)
		} else if fd, ok := h.fds[p.PID]; ok {
			unix.Close(fd)
			delete(h.fds, p.PID)
		}
	}
}

// hold opens a pidfd on p and keeps it only when p's pid still names the process that
// started at p.Start: one that exited since it was read may have left its pid to
// another, and the pidfd would hold that one. Reports whether p is held.
func (h *Held) hold(p Process) bool {
	if _, ok := h.fds[p.PID]; ok {
		return true
	}
	fd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return false
	}
	if start, err := startTime(p.PID); err != nil || start != p.Start {
		unix.Close(fd)
		return false
	}
	h.fds[p.PID] = fd
	return true
}

// startTime reads when the process of pid started, in clock ticks after boot.
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("proc: read the stat of %d: %w", pid, err)
	}
	p, err := parseStat(string(b))
	return p.Start, err
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
