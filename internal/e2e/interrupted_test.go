package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowSubmitShell installs a user pack that replaces the builtin shell pack, pressing
// Enter this long after the paste: time to kill a daemon in between.
func (r *rig) slowSubmitShell(t *testing.T, delay string) {
	t.Helper()
	builtin, err := os.ReadFile(filepath.Join("..", "..", "packs", "builtin", "shell.toml"))
	if err != nil {
		t.Fatal(err)
	}
	pack := strings.Replace(string(builtin), `submit_delay = "100ms"`, `submit_delay = "`+delay+`"`, 1)
	if pack == string(builtin) {
		t.Fatal("the shell pack's submit_delay moved: update this test")
	}
	dir := filepath.Join(r.home, "config", "paneherd", "packs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shell.toml"), []byte(pack), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestQueuedPromptOfAKilledDaemonIsAuditedInterrupted: a daemon killed between a queued
// prompt's paste and its Enter leaves it typed, unsubmitted; the next daemon audits it
// INTERRUPTED and never sends it again.
func TestQueuedPromptOfAKilledDaemonIsAuditedInterrupted(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-quiet", "0s")
	r.slowSubmitShell(t, "5s")
	rec, reads := r.recorderPane(t, "", "rec", "-busy", "2s")
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	r.start()
	r.waitState(rec, "BUSY")
	queued, code, _ := r.send("rec", "--queue", "when you are free")
	if code != 0 || queued.Outcome != "QUEUED" {
		t.Fatalf("queued send: exit %d %+v", code, queued)
	}
	r.waitFor("the queued prompt is pasted", 30*time.Second, func() bool {
		return strings.Contains(strings.Join(reads(), ""), "when you are free")
	})
	r.daemon.Process.Kill()
	<-r.done
	r.daemon = nil

	r.start()
	r.waitFor("the next daemon audits it INTERRUPTED", 30*time.Second, func() bool {
		hist, _, _ := r.paneherd("history", "rec", "--json")
		return strings.Contains(hist, queued.ID+" INTERRUPTED")
	})
	got := strings.Join(reads(), "")
	if strings.Count(got, "when you are free") != 1 || strings.Contains(got, "\r") {
		t.Errorf("the pane received %q; want the prompt once and no Enter", got)
	}
}

// TestSendInterruptedAfterThePasteIsSubmitted: an asker that goes away between its
// prompt's paste and its Enter (Ctrl-C on send; an MCP client gone: either hangs up on
// the daemon) leaves the prompt submitted, not typed in the box, and audited as it ended.
func TestSendInterruptedAfterThePasteIsSubmitted(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-quiet", "0s")
	r.slowSubmitShell(t, "3s")
	rec, reads := r.recorderPane(t, "", "rec")
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	r.start()
	r.waitState(rec, "READY")
	received := func() string { return strings.Join(reads(), "") }
	r.interrupt([]string{"send", "rec", "when you are free"}, func(int, time.Duration) bool {
		return strings.Contains(received(), "when you are free")
	})
	r.waitFor("the prompt is submitted", 30*time.Second, func() bool { return strings.Contains(received(), "\r") })
	r.waitFor("its delivery is audited", 30*time.Second, func() bool {
		hist, _, _ := r.paneherd("history", "rec", "--json")
		return strings.Contains(hist, " DELIVERED")
	})
}
