package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// interruptTarget is how soon after SIGINT a command must have ended. The test is
// timing-sensitive, so it measures against the machine: a loaded machine delays any
// process, and the bound grows with the time a whole `paneherd version` takes from
// start to exit, measured just before (interruptBound). A command that waited out its
// own timeout instead would take 10 s or more, so the bound still tells the two apart.
const interruptTarget = 200 * time.Millisecond

// interruptBound is interruptTarget plus three times what a trivial paneherd run takes
// now.
func (r *rig) interruptBound() time.Duration {
	start := time.Now()
	r.paneherd("version")
	return interruptTarget + 3*time.Since(start)
}

// TestCtrlCEndsEveryCommandAtOnce runs each waiting command against a daemon that
// answers nothing (stopped with SIGSTOP: its lock is held and its socket accepts, as a
// busy or hung daemon's would), then sends SIGINT.
func TestCtrlCEndsEveryCommandAtOnce(t *testing.T) {
	r := newRig(t)
	pane := r.tmux.NewSession("work", "")
	r.start()
	r.waitFor(pane+" is listed", 20*time.Second, func() bool { _, ok := r.status()[pane]; return ok })
	r.daemon.Process.Signal(syscall.SIGSTOP)
	defer r.daemon.Process.Signal(syscall.SIGCONT)

	asks := func(pid int, _ time.Duration) bool { return hasSocket(pid) } // it waits for the daemon's answer
	for _, c := range []struct {
		args    []string
		waiting func(pid int, running time.Duration) bool
	}{
		{[]string{"send", pane, "hello"}, asks},
		// The prompt from stdin, a pipe that stays open: it waits for its end.
		{[]string{"send", pane, "-"}, func(pid int, _ time.Duration) bool { return readsPipe(pid) }},
		{[]string{"approve", pane}, asks},
		{[]string{"deny", pane}, asks},
		{[]string{"history"}, asks},
		{[]string{"history", pane}, asks},
		{[]string{"notify", "test"}, asks},
		// wait reads the snapshot, which a stopped daemon no longer changes.
		// wait reads the snapshot every 100 ms: opened twice (nothing else opens it while
		// the daemon is stopped), it is in its loop.
		{[]string{"wait", pane, "--until", "BUSY"}, r.opensSnapshot(2)},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			bound := r.interruptBound()
			took, code, stderr := r.interrupt(c.args, c.waiting)
			t.Logf("ended %v after SIGINT (bound %v)", took, bound)
			if took > bound {
				t.Errorf("ended %v after SIGINT, want under %v", took, bound)
			}
			if code != 130 || !strings.Contains(stderr, "interrupted") {
				t.Errorf("exit %d, stderr %q; want 130 and 'interrupted'", code, stderr)
			}
		})
	}
}

// interrupt starts paneherd with args, waits until waiting says it waits, sends SIGINT
// and returns how long it took to end, its exit code and its stderr.
func (r *rig) interrupt(args []string, waiting func(pid int, running time.Duration) bool) (time.Duration, int, string) {
	r.t.Helper()
	cmd := exec.Command(binary, append([]string{"-S", r.tmux.Server.Socket}, args...)...)
	cmd.Env = r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, perr := cmd.StdinPipe() // open until the command ends: a prompt that never ends
	if perr != nil {
		r.t.Fatal(perr)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	started := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if !tmuxtest.Poll(10*time.Second, func() bool { return waiting(cmd.Process.Pid, time.Since(started)) }) {
		cmd.Process.Kill()
		<-done
		r.t.Fatalf("%v never started waiting; stderr: %s", args, stderr.String())
	}
	select {
	case err := <-done:
		r.t.Fatalf("%v ended before it was interrupted: %v; stderr: %s", args, err, stderr.String())
	default:
	}
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		r.t.Fatalf("%v still runs 30 s after SIGINT", args)
	}
	took := time.Since(sent)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	}
	return took, code, stderr.String()
}

// opensSnapshot says a process waits once the daemon's snapshot file has been opened n
// times since the process started (inotify counts the opens).
// The count starts at the first call, right after the process started.
func (r *rig) opensSnapshot(n int) func(int, time.Duration) bool {
	fd, opens := -1, 0
	return func(int, time.Duration) bool {
		if fd < 0 {
			var err error
			if fd, err = syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC); err != nil {
				r.t.Fatal(err)
			}
			r.t.Cleanup(func() { syscall.Close(fd) })
			if _, err := syscall.InotifyAddWatch(fd, r.snapshotPath(), syscall.IN_OPEN); err != nil {
				r.t.Fatal(err)
			}
		}
		buf := make([]byte, 4096)
		for {
			k, err := syscall.Read(fd, buf)
			if err != nil || k <= 0 {
				break
			}
			opens += k / syscall.SizeofInotifyEvent // a watched file's events carry no name
		}
		return opens >= n
	}
}

// snapshotPath is where the daemon publishes its snapshot.
func (r *rig) snapshotPath() string {
	dir, err := paths.ForServer(r.tmux.Server.Socket, r.tmux.Server.Key(), func(k string) string { return envValue(r.env, k) })
	if err != nil {
		r.t.Fatal(err)
	}
	return dir.Snapshot()
}

// readsPipe reports whether a thread of process pid waits in a read of a pipe.
func readsPipe(pid int) bool {
	chans, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, c := range chans {
		if b, _ := os.ReadFile(c); strings.Contains(string(b), "pipe") {
			return true
		}
	}
	return false
}

// hasSocket reports whether process pid holds a socket open: it has connected to the
// daemon and waits for its answer.
func hasSocket(pid int) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if strings.HasPrefix(link, "socket:") {
			return true
		}
	}
	return false
}

// TestMenuOutsideAClient: run from a shell, not a key binding, the menu goes to the
// client a person used last, and the command returns once they close it; with no client
// it fails at once. (display-menu with no client to show on waits for ever.)
func TestMenuOutsideAClient(t *testing.T) {
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.start()
	start := time.Now()
	_, stderr, code := r.paneherd("menu")
	if code != 1 || !strings.Contains(stderr, "no tmux client is attached") || time.Since(start) > 5*time.Second {
		t.Errorf("menu with no client: exit %d after %v, %q; want 1 at once, saying to use the key binding", code, time.Since(start), stderr)
	}

	viewer := tmuxtest.New(t)
	viewer.Run("new-session", "-d", "-s", "view", "-x", "160", "-y", "30",
		fmt.Sprintf("TMUX= exec tmux -S '%s' attach -t main", r.tmux.Server.Socket))
	r.waitFor("the client attaches", 30*time.Second, func() bool {
		return strings.Contains(r.tmux.Run("list-clients", "-F", "#{client_control_mode}"), "0")
	})
	cmd := exec.Command(binary, "-S", r.tmux.Server.Socket, "menu")
	cmd.Env = r.env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	r.waitFor("the menu shows on the client", 30*time.Second, func() bool {
		out, _ := viewer.Server.Run(t.Context(), nil, "capture-pane", "-p", "-t", "view")
		return strings.Contains(out, "paneherd") && strings.Contains(out, "UNKNOWN")
	})
	viewer.Run("send-keys", "-t", "view", "Escape") // the person closes it
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("menu: %v; %s", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Errorf("menu did not return after the person closed it")
	}

	// A key binding's command prints nothing: run-shell -b would show it in view mode over
	// the person's pane, which then refuses sends. It speaks on the client instead.
	client := strings.TrimSpace(r.tmux.Run("list-clients", "-F", "#{?client_control_mode,,#{client_name}}"))
	out, stderr, code := r.paneherd("approve", "--client", client)
	if code != 10 || out != "" || stderr != "" {
		t.Errorf("approve --client with nothing waiting: exit %d, stdout %q, stderr %q; want 10 and silence", code, out, stderr)
	}
	r.waitFor("the client shows why", 30*time.Second, func() bool {
		out, _ := viewer.Server.Run(t.Context(), nil, "capture-pane", "-p", "-t", "view")
		return strings.Contains(out, "no pane is waiting")
	})

	// Ctrl-C while the menu shows ends the command too.
	shown := func(int, time.Duration) bool {
		out, _ := viewer.Server.Run(t.Context(), nil, "capture-pane", "-p", "-t", "view")
		return strings.Contains(out, "UNKNOWN")
	}
	bound := r.interruptBound()
	took, code, stderr := r.interrupt([]string{"menu"}, shown)
	t.Logf("menu ended %v after SIGINT (bound %v)", took, bound)
	if took > bound || code != 130 {
		t.Errorf("menu: exit %d %v after SIGINT, %q", code, took, stderr)
	}
}

// TestUnknownTargetIsExit10Everywhere: one rule for every command that takes a target.
func TestUnknownTargetIsExit10Everywhere(t *testing.T) {
	r := newRig(t)
	r.tmux.NewSession("work", "")
	r.start()
	for _, args := range [][]string{{"send", "%999", "hi"}, {"approve", "%999"}, {"deny", "%999"}, {"wait", "%999"}, {"history", "%999"}} {
		if _, stderr, code := r.paneherd(args...); code != 10 {
			t.Errorf("%v: exit %d, %q; want 10", args, code, stderr)
		}
	}
}
