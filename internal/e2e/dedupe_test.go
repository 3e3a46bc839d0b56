package e2e

import (
	"testing"
	"time"
)

// TestNotificationDedupeOutlivesTheDaemon: a daemon killed and started again does not
// notify again, within the dedupe window, the error the last one notified. (A dialog is
// news again once its pane has left it, whichever daemon saw that: TestDesktopNotifications.)
// A client on another session shows the tmux messages: only what a backend delivered
// was notified, and counts across the restart.
func TestNotificationDedupeOutlivesTheDaemon(t *testing.T) {
	r := newRig(t)
	r.setOptions("notify-backend", "tmux")
	api := r.tmux.NewSession("main", showCommand(fixture(t, "claude/16-BUSY-thinking-before-first-token.txt")))
	docs := r.tmux.NewWindow("main", "docs", showCommand(fixture(t, "gemini/20-BUSY-thinking-waiting-for-first-token.txt")))
	r.tmux.Run("set-option", "-p", "-t", api, "@paneherd-pack", "claude")
	r.tmux.Run("set-option", "-p", "-t", docs, "@paneherd-pack", "gemini")
	r.tmux.NewSession("desk", "exec sleep 100000")
	attachViewer(t, r, "desk")
	notified := func(pane string) int {
		n := 0
		for _, e := range r.historyEntries(pane) {
			if e.Kind == "notify" {
				n++
			}
		}
		return n
	}
	r.start()
	r.waitState(docs, "BUSY")
	r.paneShows(t, docs, "gemini/16-ERROR-api-error-401.txt")
	r.waitFor("the failure notifies", 30*time.Second, func() bool { return notified(docs) == 1 })

	r.daemon.Process.Kill()
	<-r.done
	r.daemon = nil
	r.paneShows(t, docs, "gemini/20-BUSY-thinking-waiting-for-first-token.txt")
	r.start()
	r.waitState(docs, "BUSY")
	r.paneShows(t, docs, "gemini/16-ERROR-api-error-401.txt")
	r.waitState(docs, "ERROR")
	// A dialog elsewhere notifies after anything the failure would have sent.
	r.waitState(api, "BUSY")
	r.paneShows(t, api, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")
	r.waitFor("the dialog notifies", 30*time.Second, func() bool { return notified(api) == 1 })
	if n := notified(docs); n != 1 {
		t.Errorf("the same failure notified %d times across a daemon's restart, want once", n)
	}
}
