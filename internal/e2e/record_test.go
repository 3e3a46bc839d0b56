package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecordSavesEachChange: `paneherd record` writes a .txt/.ansi pair and an index line
// for each new screen, named with the state the bar showed, and a second recording into
// the same directory overwrites nothing.
func TestRecordSavesEachChange(t *testing.T) {
	r := newRig(t)
	pane := r.tmux.NewSession("work", "env -i TERM=xterm-256color PS1='user@host:~$ ' bash --norc --noprofile")
	r.start()
	r.waitState(pane, "READY")
	dir := filepath.Join(t.TempDir(), "frames")
	frames := func() []string {
		b, _ := os.ReadFile(filepath.Join(dir, "index.tsv"))
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		return lines[1:] // the header
	}
	record := func(want int, change func()) {
		cmd := exec.Command(binary, "-S", r.tmux.Server.Socket, "record", pane, dir, "--interval", "50ms")
		cmd.Env = r.env
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cmd.Process.Signal(syscall.SIGINT)
			if err := cmd.Wait(); err != nil {
				t.Errorf("record after Ctrl-C: %v; it printed %s", err, out.String())
			}
		}()
		r.waitFor("the first frame", 30*time.Second, func() bool { return len(frames()) >= want-1 })
		change()
		r.waitFor("a frame per change", 30*time.Second, func() bool { return len(frames()) >= want })
	}
	record(2, func() { r.tmux.Run("send-keys", "-t", pane, "echo one", "Enter") })
	record(4, func() { r.tmux.Run("send-keys", "-t", pane, "echo two", "Enter") })

	rows := frames()
	if len(rows) != 4 {
		t.Fatalf("index holds %d frames, want 4:\n%s", len(rows), strings.Join(rows, "\n"))
	}
	for i, row := range rows {
		f := strings.Split(row, "\t")
		if !strings.HasPrefix(f[0], []string{"0001-READY-", "0002-", "0003-", "0004-"}[i]) || f[2] == "" || f[4] == "" {
			t.Errorf("frame %d: %q", i+1, row)
		}
		for _, ext := range []string{".txt", ".ansi"} {
			if _, err := os.Stat(filepath.Join(dir, f[0]+ext)); err != nil {
				t.Errorf("frame %d: %v", i+1, err)
			}
		}
	}
	// Screens may show secrets: what record writes is the user's alone.
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range append(files, dir) {
		want := os.FileMode(0o600)
		if f == dir {
			want = 0o700
		}
		if fi, err := os.Stat(f); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %#o, want %#o", f, fi.Mode().Perm(), want)
		}
	}
	last, _ := os.ReadFile(filepath.Join(dir, strings.Split(rows[3], "\t")[0]+".txt"))
	if !strings.Contains(string(last), "two") {
		t.Errorf("the last frame does not show the last command:\n%s", last)
	}
}
