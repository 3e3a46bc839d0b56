package proc

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestParseForeground(t *testing.T) {
	cases := []struct {
		name, stat string
		want       Foreground
		moved      bool
	}{
		{"shell in front", "100 (bash) S 99 100 100 34816 100 4194560 …", Foreground{PID: 100, Name: "bash", Own: 100, Group: 100}, false},
		{"command in front", "100 (bash) S 99 100 100 34816 140 4194560", Foreground{PID: 100, Name: "bash", Own: 100, Group: 140}, true},
		{"no terminal", "7 (sshd) S 1 7 7 0 -1 4194560", Foreground{PID: 7, Name: "sshd", Own: 7, Group: -1}, false},
		{"comm with parentheses and spaces", "8 (a) b (c)) S 1 8 8 34817 9 0", Foreground{PID: 8, Name: "a) b (c)", Own: 8, Group: 9}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseForeground(c.want.PID, []byte(c.stat))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || got.Moved() != c.moved {
				t.Errorf("got %+v (moved %v), want %+v (moved %v)", got, got.Moved(), c.want, c.moved)
			}
		})
	}
	for _, bad := range []string{"", "1 (x) S 0 1 1 0", "1 (x) S 0 a 1 0 2", "1 x S 0 1 1 0 1"} {
		if _, err := parseForeground(1, []byte(bad)); err == nil {
			t.Errorf("parseForeground(%q) accepted malformed input", bad)
		}
	}
}

func TestTmuxName(t *testing.T) {
	for in, want := range map[string]string{
		"sleep":              "sleep",
		"-bash":              "bash",
		"/usr/bin/python3":   "python3",
		"exec sleep 100":     "sleep",
		`"/opt/my app/run"`:  "my",
		"node /x/claude":     "node",
		"/usr/bin/":          "bin",
		"vim\xc3\xa9":        "vim",
		"\xc3\xa9":           "\xc3",
		"":                   "",
		"  - tmux: server  ": "tmux:",
		"/":                  "/",
	} {
		if got := tmuxName(in); got != want {
			t.Errorf("tmuxName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadForegroundOfARealProcess(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	st, err := OpenStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fg, err := st.Foreground()
	if err != nil {
		t.Fatal(err)
	}
	// Its own group; in front of the test's terminal, if the test has one, is not it.
	if fg.PID != pid || fg.Name != "sleep" || fg.Own != pid || fg.Group == pid {
		t.Errorf("Foreground of %d = %+v", pid, fg)
	}
	me, err := OpenStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer me.Close()
	if fg, err := me.Foreground(); err != nil || fg.Own != syscall.Getpgrp() {
		t.Errorf("Foreground of the test = %+v, %v; want own group %d", fg, err, syscall.Getpgrp())
	}
	if _, err := OpenStat(-1); err == nil {
		t.Error("OpenStat(-1) found a process")
	}
	name, err := CommandName(pid)
	if err != nil || name != "sleep" {
		t.Errorf("CommandName = %q, %v; want sleep", name, err)
	}
	// Held open, the file stays this process's: once it has gone, reads fail.
	cmd.Process.Kill()
	cmd.Wait()
	if fg, err := st.Foreground(); err == nil {
		t.Errorf("Foreground of a reaped process = %+v", fg)
	}
}

// BenchmarkReadForeground reads a single-threaded process, as a pane's shell is (the
// stat of a process with many threads, like this test, costs the kernel more).
func BenchmarkReadForeground(b *testing.B) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	st, err := OpenStat(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for b.Loop() {
		if _, err := st.Foreground(); err != nil {
			b.Fatal(err)
		}
	}
}
