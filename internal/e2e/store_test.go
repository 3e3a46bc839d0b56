package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/statusline"
)

// files are the rig's daemon's files.
func (r *rig) files() paths.Dir {
	r.t.Helper()
	dir, err := paths.ForServer(r.tmux.Server.Socket, r.tmux.Server.Key(), func(k string) string { return envValue(r.env, k) })
	if err != nil {
		r.t.Fatal(err)
	}
	return dir
}

// short is what `status --short` prints (the bar's line), logged when it changes.
func (r *rig) short() string {
	r.t.Helper()
	out, _, _ := r.paneherd("status", "--short")
	out = strings.TrimSuffix(out, "\n")
	if out != r.lastShort {
		r.t.Logf("status --short: %q", out)
		r.lastShort = out
	}
	return out
}

// immutable makes a file refuse every write, through descriptors already open too, until
// mutable is called or the test ends: a real fault of the disk's kind, where chattr +i
// works (root on ext4, xfs, btrfs); elsewhere the test is skipped.
func immutable(t *testing.T, path string) (mutable func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s immutable here: %v %s", path, err, out)
	}
	done := false
	mutable = func() {
		if done {
			return
		}
		done = true
		if out, err := exec.Command("chattr", "-i", path).CombinedOutput(); err != nil {
			t.Errorf("chattr -i %s: %v %s", path, err, out)
		}
	}
	t.Cleanup(mutable)
	return mutable
}

// TestStoreWriteFailureIsShownAndHealed: the database stops taking writes under a running
// daemon. A pane's change is still published (status, the bar's line), the line and
// doctor say the store failed; once the file takes writes again the change is written
// by itself (no pane changes, no question asked) and the marker goes.
func TestStoreWriteFailureIsShownAndHealed(t *testing.T) {
	r := newRig(t)
	pane := r.tmux.NewSession("work", showCommand(fixture(t, "claude/16-BUSY-thinking-before-first-token.txt")))
	r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", "claude")
	r.tmux.Run("rename-window", "-t", pane, "api")
	r.start()
	r.waitState(pane, "BUSY")
	mutable := immutable(t, r.files().DB())

	r.paneShows(t, pane, "claude/09-READY-after-long-answer.txt")
	r.waitFor("the change is published while the store fails", 30*time.Second, func() bool {
		short := r.short()
		return r.status()[pane].State == "READY" && strings.HasPrefix(short, statusline.StoreFailed+" ") && strings.Contains(short, "[api: READY]")
	})
	lines, code := r.doctor()
	wantLine(t, lines, "database", "fail", "store: write failed", "memory meanwhile: 1)", "operation not permitted", "free space")
	if code == 0 {
		t.Errorf("doctor exit 0 with a failing store")
	}

	mutable()
	r.waitFor("the marker goes once the store takes writes", 30*time.Second, func() bool {
		short := r.short()
		return !strings.Contains(short, statusline.StoreFailed) && strings.Contains(short, "[api: READY]")
	})
	out, errs, code := r.paneherd("history", pane)
	if code != 0 || !strings.Contains(out, "BUSY -> READY") {
		t.Errorf("history after the store healed: exit %d, %s%s; want the BUSY -> READY written", code, out, errs)
	}
	lines, _ = r.doctor()
	wantLine(t, lines, "database", "ok", "schema")
}

// TestImmutableDatabaseGivesADegradedDaemon: a daemon whose database is immutable at its
// start runs all the same: it publishes states, and the bar and doctor say the store
// refuses writes and what to do.
func TestImmutableDatabaseGivesADegradedDaemon(t *testing.T) {
	r := newRig(t)
	pane := r.tmux.NewSession("work", showCommand(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	r.tmux.Run("rename-window", "-t", pane, "api")
	r.start()
	r.waitState(pane, "NEEDS_CONFIRMATION")
	r.stop()
	immutable(t, r.files().DB())

	r.start()
	r.waitState(pane, "NEEDS_CONFIRMATION")
	r.waitFor("the bar says the store fails", 30*time.Second, func() bool {
		short := r.short()
		return strings.HasPrefix(short, statusline.StoreFailed+" ") && strings.Contains(short, "[api: NEEDS_CONFIRMATION]")
	})
	if !strings.Contains(r.stderr.String(), "opened read-only") {
		t.Errorf("the daemon did not say it opened the database read-only; stderr: %s", r.stderr)
	}
	lines, _ := r.doctor()
	wantLine(t, lines, "database", "fail", "store: write failed", "read-only", "neither stored nor kept", "paneherd restart")
}

// TestDatabaseThatIsNoFileIsExplained: a database path that is a symlink to /dev/null
// is refused saying what it is and what to do, not with bbolt's "invalid argument".
func TestDatabaseThatIsNoFileIsExplained(t *testing.T) {
	r := newRig(t)
	r.tmux.NewSession("work", "exec sleep 100000")
	db := r.files().DB()
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", db); err != nil {
		t.Fatal(err)
	}
	_, errs, code := r.paneherd("watch")
	if code != 1 || !strings.Contains(errs, "a symlink to /dev/null, a character device") || !strings.Contains(errs, "remove it") {
		t.Errorf("watch with state.db -> /dev/null: exit %d, stderr %q", code, errs)
	}
}
