//go:build linux

package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHoldTreeEndsWhatOutlivedItsParent: a program leading its own session starts a
// helper in a session of its own, one that ignores SIGTERM, and one whose parent exits at
// once (an orphan of its session), then exits; ending what was held takes all three.
// (The program is started by a shell that exits at once, so that it is not below this
// test's process, which HoldTree spares.)
func TestHoldTreeEndsWhatOutlivedItsParent(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	tree := `setsid sleep 100 </dev/null >/dev/null 2>&1 & echo $! >>` + pids + `
		sh -c 'trap "" TERM; echo $$ >>` + pids + `; exec sleep 101' &
		(sleep 102 </dev/null >/dev/null 2>&1 & echo $! >>` + pids + `)
		while [ $(wc -l <` + pids + `) -lt 4 ]; do sleep 0.01; done; exec sleep 103`
	if err := exec.Command("sh", "-c", `setsid sh -c '`+strings.ReplaceAll(tree, "'", `'\''`)+`' & echo $! >`+pids).Run(); err != nil {
		t.Fatal(err)
	}
	var started []int // the program, then its three helpers
	deadline := time.Now().Add(5 * time.Second)
	for len(started) < 4 || !asleep(started[0]) {
		if time.Now().After(deadline) {
			t.Fatalf("the tree did not start: %v", started)
		}
		time.Sleep(10 * time.Millisecond)
		b, _ := os.ReadFile(pids)
		started = nil
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			started = append(started, pid)
		}
	}
	t.Cleanup(func() {
		for _, pid := range started {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	h, err := HoldTree(started[0])
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(started[0], syscall.SIGKILL)
	if n := h.End(200 * time.Millisecond); n < 3 {
		t.Errorf("End = %d, want the 3 helpers (and the program, unless it died first)", n)
	}
	for _, pid := range started {
		if alive(pid) {
			t.Errorf("process %d runs on", pid)
		}
	}
}

// asleep reports whether pid has become sleep (exec'd).
func asleep(pid int) bool {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b)) == "sleep"
}

// alive reports whether pid runs (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// TestHoldTreeSparesItsCaller: the daemon may run below the worker it retires (started by
// the worker's own `paneherd mcp`): it and its children are never held.
func TestHoldTreeSparesItsCaller(t *testing.T) {
	child := exec.Command("sleep", "100")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	h, err := HoldTree(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if len(h.fds) != 0 {
		t.Errorf("held %v: this process or its child", h.fds)
	}
}
