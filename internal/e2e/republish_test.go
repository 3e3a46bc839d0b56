package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestLostPublishedFilesAreWrittenAgain: on a quiet server (no pane changes), the
// snapshot and the workers registry removed or garbled by hand are written again by the
// daemon within seconds: `status --short` (the bar) and `workers` work again.
func TestLostPublishedFilesAreWrittenAgain(t *testing.T) {
	r := newRig(t)
	pane := r.tmux.NewSession("work", showCommand(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	r.tmux.Run("rename-window", "-t", pane, "api")
	r.start()
	r.waitState(pane, "NEEDS_CONFIRMATION")
	snapshot, registry := r.files().Snapshot(), r.files().Workers()
	barWorks := func() bool { return strings.Contains(r.short(), "[api: NEEDS_CONFIRMATION]") }
	workersWork := func() bool { _, _, code := r.paneherd("workers", "--json"); return code == 0 }
	r.waitFor("the registry is published", 10*time.Second, func() bool { _, err := os.Stat(registry); return err == nil })

	for _, damage := range []struct {
		what string
		do   func(path string) error
	}{
		{"removed", os.Remove},
		{"garbled", func(path string) error { return os.WriteFile(path, []byte("{garbage"), 0o600) }},
	} {
		if err := damage.do(snapshot); err != nil {
			t.Fatal(err)
		}
		if barWorks() {
			t.Fatalf("status --short works with the snapshot %s: the test proves nothing", damage.what)
		}
		r.waitFor("the snapshot "+damage.what+" is written again", 15*time.Second, barWorks)

		if err := damage.do(registry); err != nil {
			t.Fatal(err)
		}
		if damage.what == "garbled" && workersWork() {
			t.Fatal("workers works with a garbled registry: the test proves nothing")
		}
		r.waitFor("the registry "+damage.what+" is written again", 15*time.Second, func() bool {
			_, err := os.Stat(registry)
			return err == nil && workersWork()
		})
	}
}
