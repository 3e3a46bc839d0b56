//go:build linux

package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc/proctest"
	"golang.org/x/sys/unix"
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
	reaper := proctest.NewReaper(t)
	if err := exec.Command("sh", "-c", `setsid sh -c '`+quote(tree)+`' & echo $! >`+pids).Run(); err != nil {
		t.Fatal(err)
	}
	started := waitPIDs(t, reaper, pids, 4) // the program, then its three helpers
	h, err := HoldTree(started[0], func() bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	unix.PidfdSendSignal(h.fds[started[0]], unix.SIGKILL, nil, 0)
	if n := h.End(200 * time.Millisecond); n < 3 {
		t.Errorf("End = %d, want the 3 helpers (and the program, unless it died first)", n)
	}
	for _, pid := range started {
		if proctest.Running(pid) {
			t.Errorf("process %d runs on", pid)
		}
	}
}

// quote puts s in single quotes for sh.
func quote(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

// waitPIDs waits for the file to name n processes, the first of them exec'd as sleep,
// and hands each to the reaper as soon as it is named.
func waitPIDs(t *testing.T, reaper *proctest.Reaper, file string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			reaper.Add(pid)
			pids = append(pids, pid)
		}
		if len(pids) >= n && asleep(pids[0]) {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the processes did not start: %v", pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// asleep reports whether pid has become sleep (exec'd).
func asleep(pid int) bool {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b)) == "sleep"
}

// TestHoldTreeSparesItsCaller: the daemon may run below the worker it retires (started by
// the worker's own `paneherd mcp`): it and its children are never held.
func TestHoldTreeSparesItsCaller(t *testing.T) {
	child := exec.Command("sleep", "100")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	h, err := HoldTree(os.Getpid(), func() bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if len(h.fds) != 0 {
		t.Errorf("held %v: this process or its child", h.fds)
	}
}

// TestHoldSkipsAProcessThatIsNoLongerTheOneRead: a process read in a scan that exited
// since may have left its pid to another; the pid then names a process of another start
// time, and the pidfd opened on it is let go.
func TestHoldSkipsAProcessThatIsNoLongerTheOneRead(t *testing.T) {
	child := exec.Command("sleep", "100")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	start, err := startTime(child.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	h := &Held{fds: map[int]int{}}
	defer h.Release()
	if h.hold(Process{PID: child.Process.Pid, Start: start - 1}) || len(h.fds) != 0 {
		t.Errorf("held %v: the pid of a process that started at another time", h.fds)
	}
	if !h.hold(Process{PID: child.Process.Pid, Start: start}) || len(h.fds) != 1 {
		t.Errorf("held %v: not the process read", h.fds)
	}
}

// TestHoldTreeHoldsNothingUnconfirmed: the caller, asked once the root's pidfd is open,
// says the pid no longer names the process it meant (tmux: the pane's process is another).
func TestHoldTreeHoldsNothingUnconfirmed(t *testing.T) {
	child := exec.Command("sleep", "100")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	var pinned bool
	before := pidfdsOn(t, child.Process.Pid) // os/exec may hold one on its child
	h, err := HoldTree(child.Process.Pid, func() bool {
		pinned = pidfdsOn(t, child.Process.Pid) > before
		return false
	})
	if h != nil || !errors.Is(err, ErrNotConfirmed) {
		t.Errorf("HoldTree = %v, %v; want nothing held, ErrNotConfirmed", h, err)
	}
	if !pinned {
		t.Error("the root's pidfd was not open when the caller was asked")
	}
}

// pidfdsOn counts the pidfds this process has open on pid.
func pidfdsOn(t *testing.T, pid int) int {
	t.Helper()
	infos, err := filepath.Glob("/proc/self/fdinfo/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, info := range infos {
		b, _ := os.ReadFile(info)
		fd := filepath.Join("/proc/self/fd", filepath.Base(info))
		if link, _ := os.Readlink(fd); link == "anon_inode:[pidfd]" && strings.Contains(string(b), "\nPid:\t"+strconv.Itoa(pid)+"\n") {
			n++
		}
	}
	return n
}

// TestHoldSessionHoldsWhatItsLeaderLeft: a session's leader (as a dead pane's process)
// started a job and was killed; the job, alone in the session now, is held and ended,
// whether the leader has been reaped or is a zombie still (as tmux may leave it).
func TestHoldSessionHoldsWhatItsLeaderLeft(t *testing.T) {
	for _, c := range []struct {
		name, parent string
		gone         func(leader int) bool
	}{
		{"reaped", "wait", func(leader int) bool { _, err := startTime(leader); return err != nil }},
		{"a zombie", "exec sleep 100", func(leader int) bool { return !proctest.Running(leader) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			leaderFile, jobFile := filepath.Join(dir, "leader"), filepath.Join(dir, "job")
			reaper := proctest.NewReaper(t)
			// The job is no longer below this test's process once the leader is gone.
			parent := exec.Command("sh", "-c", `setsid sh -c '`+quote(`sleep 101 & echo $! >`+jobFile+`; exec sleep 102`)+
				`' & echo $! >`+leaderFile+`; `+c.parent)
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { parent.Process.Kill(); parent.Wait() })
			leader := waitPIDs(t, reaper, leaderFile, 1)[0]
			job := waitPIDs(t, reaper, jobFile, 1)[0]
			kill(t, leader)
			deadline := time.Now().Add(5 * time.Second)
			for !c.gone(leader) {
				if time.Now().After(deadline) {
					t.Fatalf("the leader %d is not gone as wanted", leader)
				}
				time.Sleep(10 * time.Millisecond)
			}
			h, err := HoldSession(leader)
			if err != nil {
				t.Fatal(err)
			}
			if n := h.End(time.Second); n != 1 || proctest.Running(job) {
				t.Errorf("End = %d, job alive %v; want the job ended", n, proctest.Running(job))
			}
		})
	}
}

// kill kills pid by pidfd, so never a process that took its pid since.
func kill(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == nil {
		err = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		unix.Close(fd)
	}
	if err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
}

// TestHoldSessionOfALiveLeaderHoldsNothing: a process leads the session of that id: the
// dead leader's pid went to it, the session asked for has ended, and this one is not it.
func TestHoldSessionOfALiveLeaderHoldsNothing(t *testing.T) {
	dir := t.TempDir()
	leaderFile, jobFile := filepath.Join(dir, "leader"), filepath.Join(dir, "job")
	reaper := proctest.NewReaper(t)
	leading := `setsid sh -c '` + quote(`sleep 100 & echo $! >`+jobFile+`; exec sleep 101`) + `' & echo $! >` + leaderFile
	if err := exec.Command("sh", "-c", leading).Run(); err != nil {
		t.Fatal(err)
	}
	leader := waitPIDs(t, reaper, leaderFile, 1)[0]
	waitPIDs(t, reaper, jobFile, 1)
	h, err := HoldSession(leader)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if len(h.fds) != 0 {
		t.Errorf("held %v: the session of a process that lives", h.fds)
	}
}
