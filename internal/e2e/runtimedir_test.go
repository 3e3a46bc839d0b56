package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestRuntimeDirOfAnotherUserIsRefused: with a tmux socket path too long for paneherd's
// lock, sockets and snapshot to sit beside it, they go to $TMPDIR/paneherd-<uid>.
// Another user who made that directory first (hers, mode 0777) could swap in her own
// daemon's files: her states in `status`, her socket taking what `send` types. start and
// status refuse it and say what to do; with a TMPDIR of one's own the files go there. A
// socket there that is not ours is refused by the front ends too.
func TestRuntimeDirOfAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("acting as another user needs root")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("no setpriv to act as another user")
	}
	r := rigOn(t, tmuxtest.NewAt(t, strings.Repeat("s", 80)))
	if len(r.tmux.Server.Socket+".paneherd/query.sock") <= 100 {
		t.Fatalf("socket %s is short enough for the files to sit beside it", r.tmux.Server.Socket)
	}
	pane, reads := r.recorderPane(t, "", "w")
	tmp := shortTempDir(t, 0o777|os.ModeSticky) // as /tmp is: anyone may make a directory in it
	r.env = append(r.env, "TMPDIR="+tmp)
	parent := filepath.Join(tmp, "paneherd-0")
	if out, err := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		"mkdir", "-m", "0777", parent).CombinedOutput(); err != nil {
		t.Fatalf("mkdir as uid 65534: %v: %s", err, out)
	}

	for _, args := range [][]string{{"start"}, {"status", "--short"}} {
		_, errs, code := r.paneherd(args...)
		if code == 0 {
			t.Errorf("%s used %s, a directory of uid 65534", args[0], parent)
		}
		for _, want := range []string{parent + " belongs to uid 65534", "remove it", "shorter socket path"} {
			if !strings.Contains(errs, want) {
				t.Errorf("%s: stderr %q does not say %q", args[0], errs, want)
			}
		}
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("paneherd put %d files in a directory of uid 65534", len(left))
	}

	own := shortTempDir(t, 0o700)
	r.env = append(r.env, "TMPDIR="+own)
	r.start()
	sockets, _ := filepath.Glob(filepath.Join(own, "paneherd-0", "*", "query.sock"))
	if len(sockets) != 1 {
		t.Fatalf("query sockets under a TMPDIR of our own: %v, want one", sockets)
	}
	if _, errs, code := r.paneherd("history"); code != 0 {
		t.Fatalf("history with a TMPDIR of our own: exit %d: %s", code, errs)
	}

	if err := os.Chown(sockets[0], 65534, 65534); err != nil {
		t.Fatal(err)
	}
	defer os.Chown(sockets[0], 0, 0)
	_, code, errs := r.send(pane, "export SECRET=x && deploy")
	if code == 0 || !strings.Contains(errs, sockets[0]+" belongs to uid 65534") {
		t.Errorf("send to a query socket of uid 65534: exit %d, stderr %q; want a refusal naming it", code, errs)
	}
	if got := reads(); len(got) != 0 {
		t.Errorf("the recorder read %q", got)
	}
}

// shortTempDir is a directory under /tmp with mode perm, removed when the test ends: short,
// as sockets go below it.
func shortTempDir(t *testing.T, perm os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "ph")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
	return dir
}
