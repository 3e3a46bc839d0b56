//go:build linux

// Package proctest is for processes a test started but does not wait for (a pane's, what
// a pane's program left behind): it says whether one runs, and kills them when the test
// ends by pidfd, so a process that exited meanwhile and left its pid to another is not
// killed in its place.
package proctest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Reaper holds by pidfd each process it is given and kills those at the test's end.
type Reaper struct {
	mu  sync.Mutex
	fds map[int]int // pid -> pidfd
}

// NewReaper registers its cleanup at once, before the test waits for its processes to
// start: a test that gives up waiting still kills those it learned.
func NewReaper(t testing.TB) *Reaper {
	r := &Reaper{fds: map[int]int{}}
	t.Cleanup(r.kill)
	return r
}

// Add holds pid, to be killed at the test's end; add it as soon as it is learned, while
// the process surely runs. A pid given again is held once.
func (r *Reaper) Add(pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.fds[pid]; ok {
		return
	}
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		r.fds[pid] = fd
	}
}

func (r *Reaper) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for pid, fd := range r.fds {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		unix.Close(fd)
		delete(r.fds, pid)
	}
}

// Running reports whether pid runs: a zombie has ended.
func Running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
