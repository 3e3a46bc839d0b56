package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/dbustest"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// attachViewer attaches a real client to session, inside a second tmux server; the
// client shows, and is focused on, the session's current pane.
func attachViewer(t *testing.T, r *rig, session string) {
	t.Helper()
	viewer := tmuxtest.New(t)
	r.viewer = viewer
	viewer.Run("new-session", "-d", "-s", "view", "-x", "160", "-y", "30",
		fmt.Sprintf("TMUX= exec tmux -S '%s' attach -t %s", r.tmux.Server.Socket, session))
	// The daemon's own control clients are clients too: wait for a person's.
	r.waitFor("the viewer attaches", 15*time.Second, func() bool {
		return strings.Contains(r.tmux.Run("list-clients", "-F", "#{client_control_mode}"), "0")
	})
}

func TestDesktopNotifications(t *testing.T) {
	bus := dbustest.Bus(t)
	server := dbustest.Serve(t, bus)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
	r := newRig(t)
	watched := r.tmux.NewSession("main", showCommand(fixture(t, "claude/16-BUSY-thinking-before-first-token.txt")))
	r.tmux.Run("rename-window", "-t", watched, "watched")
	api := r.tmux.NewWindow("main", "api", showCommand(fixture(t, "claude/16-BUSY-thinking-before-first-token.txt")))
	docs := r.tmux.NewWindow("main", "docs", showCommand(fixture(t, "gemini/20-BUSY-thinking-waiting-for-first-token.txt")))
	for pane, pack := range map[string]string{watched: "claude", api: "claude", docs: "gemini"} {
		r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", pack)
	}
	attachViewer(t, r, "main") // looking at "watched"
	r.start()
	r.waitFor("every pane is BUSY", 30*time.Second, func() bool {
		st := r.status()
		return st[watched].State == "BUSY" && st[api].State == "BUSY" && st[docs].State == "BUSY"
	})

	r.paneShows(t, api, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")
	r.waitFor("one desktop notification", 30*time.Second, func() bool { return len(server.Received()) == 1 })
	got := server.Received()[0]
	if got.Summary != "api needs your confirmation" || !strings.Contains(got.Body, "echo hello-from-fake-model") ||
		!strings.Contains(got.Body, "main:1.0") || got.Urgency != 2 {
		t.Errorf("notification = %+v; want the worker, the command awaiting approval, the target, critical urgency", got)
	}

	// The dialog answered (api BUSY for longer than a blip) and asked again in the same
	// words, inside the dedupe window, is a new question: it notifies alone, since a dialog
	// in the pane the person is looking at does not. A failure elsewhere then does, and
	// must be the third (and last) call.
	r.paneShows(t, api, "claude/16-BUSY-thinking-before-first-token.txt")
	r.waitFor("api out of its dialog for longer than a blip", 30*time.Second, func() bool {
		p := r.status()[api]
		return p.State == "BUSY" && time.Since(p.Since) > notify.DialogBlip
	})
	r.paneShows(t, api, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")
	r.paneShows(t, watched, "claude/12-NEEDS_CONFIRMATION-write-file-permission-prompt.txt")
	r.waitFor("both dialogs are seen", 30*time.Second, func() bool {
		st := r.status()
		return st[api].State == "NEEDS_CONFIRMATION" && st[watched].State == "NEEDS_CONFIRMATION"
	})
	r.waitFor("the dialog asked again notifies", 30*time.Second, func() bool { return len(server.Received()) >= 2 })
	r.paneShows(t, docs, "gemini/16-ERROR-api-error-401.txt")
	r.waitFor("the failure notifies", 30*time.Second, func() bool { return len(server.Received()) >= 3 })
	calls := server.Received()
	if len(calls) != 3 || calls[1].Summary != "api needs your confirmation" || calls[2].Summary != "docs failed" ||
		!strings.Contains(calls[2].Body, "401") {
		t.Errorf("calls after the dialog asked again and the watched dialog = %+v; want the dialog again, then the failure", calls)
	}

	out, _, _ := r.paneherd("history", "api", "--json")
	if !strings.Contains(out, `needs-confirmation via desktop`) {
		t.Errorf("history lacks the sent notification:\n%s", out)
	}
	out, errs, code := r.paneherd("notify", "test")
	if code != 0 || !strings.Contains(out, "delivered by desktop") {
		t.Errorf("notify test: exit %d %q %q", code, out, errs)
	}
	out, _, _ = r.paneherd("metrics")
	for _, want := range []string{`paneherd_notifications_total{kind="needs-confirmation"} 2`,
		`paneherd_notifications_total{kind="error"} 1`, `paneherd_notifications_total{kind="test"} 1`} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, out)
		}
	}
}

func TestNotificationFallsBackToTmuxWithoutABus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("DISPLAY", ":99") // a display but no bus: godbus would autolaunch here
	// godbus autolaunches by running dbus-launch: one on PATH that records being run
	// proves it never was (this machine may have no real one to leak).
	fake := t.TempDir()
	launched := filepath.Join(fake, "launched")
	os.WriteFile(filepath.Join(fake, "dbus-launch"), []byte("#!/bin/sh\necho \"$@\" >> "+launched+"\nexit 1\n"), 0o755)
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	before := dbusDaemons()
	r := newRig(t)
	home := r.tmux.NewSession("main", "exec sleep 100000")
	r.tmux.Run("rename-window", "-t", home, "home")
	agent := r.tmux.NewWindow("main", "agent", showCommand(fixture(t, "codex/08-BUSY-running-command.txt")))
	r.tmux.Run("set-option", "-p", "-t", agent, "@paneherd-pack", "codex")
	attachViewer(t, r, "main")
	r.start()
	r.waitFor("the agent is BUSY", 30*time.Second, func() bool { return r.status()[agent].State == "BUSY" })

	r.paneShows(t, agent, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	var entries struct {
		Entries []struct{ Kind, Detail string }
	}
	r.waitFor("a notification is recorded", 30*time.Second, func() bool {
		out, _, _ := r.paneherd("history", "agent", "--json")
		json.Unmarshal([]byte(out), &entries)
		for _, e := range entries.Entries {
			if e.Kind == "notify" {
				return true
			}
		}
		return false
	})
	var detail string
	for _, e := range entries.Entries {
		if e.Kind == "notify" {
			detail = e.Detail
		}
	}
	if !strings.Contains(detail, "needs-confirmation via tmux") {
		t.Errorf("notification went %q; want the tmux fallback", detail)
	}
	out, _, code := r.paneherd("notify", "test")
	if code != 0 || !strings.Contains(out, "delivered by tmux") {
		t.Errorf("notify test without a bus: exit %d %q", code, out)
	}
	if after := dbusDaemons(); after != before {
		t.Errorf("dbus-daemon processes: %d before, %d after: one was autolaunched", before, after)
	}
	if b, err := os.ReadFile(launched); err == nil {
		t.Errorf("dbus-launch was run (%q): a bus daemon would have been autolaunched", b)
	}
}

// TestNotifyTestSaysEachBackend: `notify test` prints a line per configured backend; a
// backend that cannot deliver (a command that is not found) is its own line there, in
// doctor and once in the daemon's log, while the others deliver.
func TestNotifyTestSaysEachBackend(t *testing.T) {
	withoutBus(t)
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.setOptions("notify-command", "paneherd-test-no-such-program --now")
	attachViewer(t, r, "main")
	r.start()

	out, errs, code := r.paneherd("notify", "test")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 1 || len(lines) != 3 || !strings.HasPrefix(lines[0], "not delivered by desktop (another backend took its place): no desktop session bus") ||
		lines[1] != "delivered by tmux" || !strings.HasPrefix(lines[2], "not delivered by command: ") ||
		!strings.Contains(errs, "not every backend delivered the test notification (sent from the daemon)") {
		t.Errorf("notify test: exit %d\n%s%s\nwant a line per backend: the desktop covered by tmux, the command's failure; exit 1", code, out, errs)
	}
	// The program is looked up at each notification (installed later, it just works): its
	// absence is a warning, and one line in the log for the one notification it missed.
	if n := strings.Count(r.daemonLog(), "paneherd-test-no-such-program is not found on the daemon's PATH"); n != 1 {
		t.Errorf("the missing program is %d lines in the daemon's log, want 1:\n%s", n, r.daemonLog())
	}
	checks, _ := r.doctor()
	wantLine(t, checks, "notify-command", "warn", "command: ", "the other backends notify meanwhile", "@paneherd-notify-command")
	wantLine(t, checks, "notify", "warn", "notifications go to tmux messages")

	r.setOptions("notify-backend", "off")
	r.paneherd("hook", "reload") // the daemon reads the options again
	r.waitFor("the daemon takes notify-backend off", 10*time.Second, func() bool {
		_, errs, _ := r.paneherd("notify", "test")
		return strings.Contains(errs, "notifications are off")
	})
	if checks, _ := r.doctor(); len(checks["notify-command"]) != 0 {
		t.Errorf("notify-backend off: doctor still has %+v", checks["notify-command"])
	}
}

// TestNotifyTestAnswersDespiteHangingBackends: a web hook whose server never answers and
// a command that sleeps past what notify test waits for are each a line saying so, beside
// the backend that delivered, within notify test's own limit: the daemon is not hung up
// on before it has answered.
func TestNotifyTestAnswersDespiteHangingBackends(t *testing.T) {
	withoutBus(t)
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select { // never answers: until the client gives up, or the test ends
		case <-r.Context().Done():
		case <-hold:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(hold) }) // before srv.Close, which waits for the handler
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.setOptions("notify-backend", "tmux", "notify-webhook", srv.URL+"/hook",
		"notify-command", "sleep 60", "notify-command-timeout", "30s")
	attachViewer(t, r, "main")
	r.start()

	start := time.Now()
	out, errs, code := r.paneherd("notify", "test")
	took := time.Since(start)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{"delivered by tmux", "not delivered by command: did not answer within 8s", "not delivered by webhook: did not answer within 8s"}
	ok := code == 1 && len(lines) == len(want) && strings.Contains(errs, "not every backend delivered the test notification")
	for i := range want {
		ok = ok && i < len(lines) && strings.HasPrefix(lines[i], want[i])
	}
	if !ok {
		t.Errorf("notify test: exit %d after %s\n%s%s\nwant a line per backend, starting:\n%s", code, took.Round(time.Millisecond), out, errs, strings.Join(want, "\n"))
	}
	if took < 8*time.Second || took > 15*time.Second {
		t.Errorf("notify test took %s; want the 8 s it waits for a backend, and not much more", took.Round(time.Millisecond))
	}
}
