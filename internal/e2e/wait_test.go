package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestWaitSavesTheLastScreenful: wait --save-output writes the pane's visible screen when
// the wait ends, however it ends; a pane that is gone leaves the file alone; a file that
// cannot be written fails the command after the result is printed.
func TestWaitSavesTheLastScreenful(t *testing.T) {
	r := newRig(t)
	worker := r.tmux.NewSession("work", `sh -c 'printf "first line\n\nsecond line\nuser@host:~$ "; exec cat >/dev/null'`)
	doomed := r.tmux.NewWindow("work", "doomed", "exec sleep 100000")
	for _, pane := range []string{worker, doomed} {
		r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", "shell")
	}
	r.start()
	r.waitState(worker, "READY")
	dir := t.TempDir()
	wait := func(args ...string) (string, string, string, int) {
		t.Helper()
		out, errs, code := r.paneherd(append([]string{"wait", "--json"}, args...)...)
		var res struct {
			FinalState string `json:"final_state"`
		}
		json.Unmarshal([]byte(out), &res)
		return res.FinalState, out, errs, code
	}
	want := "first line\n\nsecond line\nuser@host:~$\n" // the visible screen, its blank tail trimmed
	saved := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return string(b)
	}

	if st, _, errs, code := wait(worker, "--until", "READY", "--save-output", filepath.Join(dir, "ready.txt")); st != "reached" || code != 0 {
		t.Errorf("wait --until READY: %s exit %d %s", st, code, errs)
	}
	if got := saved("ready.txt"); got != want {
		t.Errorf("saved %q, want %q", got, want)
	}
	private := func(name string) {
		t.Helper()
		// A screen may show a secret: the file is the user's alone, even one replaced.
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %#o, want 0600", name, fi.Mode().Perm())
		}
	}
	private("ready.txt")

	os.WriteFile(filepath.Join(dir, "timeout.txt"), []byte("an older screen\n"), 0o644)
	if st, _, errs, code := wait(worker, "--until", "BUSY", "--timeout", "1s", "--save-output", filepath.Join(dir, "timeout.txt")); st != "timeout" || code != 23 {
		t.Errorf("wait that times out: %s exit %d %s", st, code, errs)
	}
	if got := saved("timeout.txt"); got != want {
		t.Errorf("after a timeout saved %q, want %q", got, want)
	}
	private("timeout.txt")
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temp files left behind: %v", left)
	}

	st, out, errs, code := wait(worker, "--until", "READY", "--save-output", filepath.Join(dir, "no", "such", "dir.txt"))
	if st != "reached" || code != 1 || !strings.Contains(errs, "--save-output") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("a file that cannot be written: %s exit %d, stdout %q, stderr %q; want the result printed, one line, exit 1", st, code, out, errs)
	}

	if _, errs, code := r.paneherd("wait", worker, "--until", "BOGUS", "--save-output", filepath.Join(dir, "usage.txt")); code != 2 {
		t.Errorf("a usage error: exit %d %s", code, errs)
	}
	if _, errs, code := r.paneherd("wait", worker, "--save-output", ""); code != 2 || !strings.Contains(errs, "--save-output needs a FILE") {
		t.Errorf("--save-output '': exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "usage.txt")); err == nil {
		t.Error("a usage error wrote the file")
	}

	type ended struct {
		state, errs string
		code        int
	}
	r.waitFor("the doomed pane is watched", 30*time.Second, func() bool { return r.status()[doomed].State != "" })
	opens := r.snapshotOpens()
	done := make(chan ended, 1)
	go func() {
		st, _, errs, code := wait(doomed, "--timeout", "60s", "--save-output", filepath.Join(dir, "gone.txt"))
		done <- ended{st, errs, code}
	}()
	// Killed before the wait found it, the pane would be not_found: the wait reads the
	// snapshot once to find its pane, then every 100 ms.
	r.waitFor("the wait is in its loop", 30*time.Second, func() bool { return opens() >= 2 })
	r.tmux.Run("kill-pane", "-t", doomed)
	select {
	case e := <-done:
		if e.state != "crashed" || e.code != 21 || !strings.Contains(e.errs, "the pane is gone") {
			t.Errorf("wait on a pane killed: %s exit %d %q; want crashed, 21, and stderr saying the pane is gone", e.state, e.code, e.errs)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the wait on a killed pane did not end")
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); err == nil {
		t.Error("a gone pane's screen was written")
	}

	if out, _, code := r.paneherd("wait", "-h"); code != 0 || !strings.Contains(out, "--save-output FILE") {
		t.Errorf("wait -h does not mention --save-output: %s", out)
	}
}

// snapshotOpens counts, from now on, the opens of the daemon's snapshot file. It watches
// the directory, not the file: the daemon replaces the file (a rename) as it publishes.
func (r *rig) snapshotOpens() func() int {
	r.t.Helper()
	path := r.snapshotPath()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { syscall.Close(fd) })
	if _, err := syscall.InotifyAddWatch(fd, filepath.Dir(path), syscall.IN_OPEN); err != nil {
		r.t.Fatal(err)
	}
	opens := 0
	buf := make([]byte, 64<<10)
	return func() int {
		for {
			k, err := syscall.Read(fd, buf)
			if err != nil || k <= 0 {
				return opens
			}
			for ev := buf[:k]; len(ev) >= syscall.SizeofInotifyEvent; {
				e := (*syscall.InotifyEvent)(unsafe.Pointer(&ev[0]))
				name := ev[syscall.SizeofInotifyEvent : syscall.SizeofInotifyEvent+int(e.Len)]
				if strings.TrimRight(string(name), "\x00") == filepath.Base(path) {
					opens++
				}
				ev = ev[syscall.SizeofInotifyEvent+int(e.Len):]
			}
		}
	}
}
