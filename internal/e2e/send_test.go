package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recorderPane starts a keyrecorder in a new window and returns its pane id and a reader
// of the reads it logged.
func (r *rig) recorderPane(t *testing.T, session, name string, flags ...string) (string, func() []string) {
	t.Helper()
	return r.recorderPaneIn(t, "", session, name, flags...)
}

// recorderPaneIn is recorderPane running in dir ("": the server's default): the pane's
// current folder.
func (r *rig) recorderPaneIn(t *testing.T, dir, session, name string, flags ...string) (string, func() []string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "keys.log")
	os.WriteFile(log, nil, 0o644)
	cmd := fmt.Sprintf("exec %s -log %s %s", shellQuote(recorder), shellQuote(log), strings.Join(flags, " "))
	if dir != "" {
		cmd = "cd " + shellQuote(dir) + " && " + cmd
	}
	var id string
	if session == "" {
		id = r.tmux.NewSession("work", cmd)
		r.tmux.Run("rename-window", "-t", id, name)
	} else {
		id = r.tmux.NewWindow(session, name, cmd)
	}
	reads := func() []string {
		b, _ := os.ReadFile(log)
		var out []string
		for _, line := range strings.Fields(string(b)) {
			raw, _ := hex.DecodeString(line)
			out = append(out, string(raw))
		}
		return out
	}
	return id, reads
}

// setOptions sets @paneherd- options before the daemon starts.
func (r *rig) setOptions(kv ...string) {
	for i := 0; i+1 < len(kv); i += 2 {
		r.tmux.Run("set-option", "-g", "@paneherd-"+kv[i], kv[i+1])
	}
}

func (r *rig) waitState(pane, state string) {
	r.t.Helper()
	r.waitFor(pane+" is "+state, 30*time.Second, func() bool { return r.status()[pane].State == state })
}

type sendResult struct{ ID, Outcome, Detail string }

func (r *rig) send(args ...string) (sendResult, int, string) {
	r.t.Helper()
	out, errs, code := r.paneherd(append([]string{"send", "--json"}, args...)...)
	var res sendResult
	json.Unmarshal([]byte(out), &res)
	return res, code, errs
}

func TestSendPastesOnceThenSubmits(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-quiet", "0s")
	rec, reads := r.recorderPane(t, "", "rec")
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	r.start()
	r.waitState(rec, "READY")

	prompt := "line one\nline \"two\"\x1b[201~\x03 and $(rm -rf ~)\r\n"
	res, code, errs := r.send("rec", prompt)
	if code != 0 || res.Outcome != "DELIVERED" || !strings.HasPrefix(res.ID, "t") {
		t.Fatalf("send: exit %d %+v %s", code, res, errs)
	}
	got := reads()
	want := []string{"\x1b[200~line one\nline \"two\"[201~ and $(rm -rf ~)\x1b[201~", "\r"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the pane received %q\nwant %q: one bracketed paste, control characters gone, Enter on its own", got, want)
	}

	hist, _, _ := r.paneherd("history", "rec", "--json")
	if !strings.Contains(hist, res.ID+" DELIVERED") || !strings.Contains(hist, "sha256") {
		t.Errorf("the send is not audited:\n%s", hist)
	}
	if strings.Contains(hist, "line one") {
		t.Errorf("the audit keeps the prompt's text:\n%s", hist)
	}
}

// TestSendInAnEnvelope: --envelope pastes the prompt wrapped in its envelope, and the
// audit names the envelope; a bad envelope id is a usage error and sends nothing.
func TestSendInAnEnvelope(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-quiet", "0s")
	rec, reads := r.recorderPane(t, "", "rec")
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	r.start()
	r.waitState(rec, "READY")

	for _, bad := range []string{"a b", "", "x]", strings.Repeat("x", 65)} {
		_, errs, code := r.paneherd("send", "--envelope", bad, "rec", "hello")
		if code != 2 || !strings.Contains(errs, "--envelope") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("--envelope %q: exit %d %q; want exit 2 and one line", bad, code, errs)
		}
	}
	if got := reads(); len(got) != 0 {
		t.Fatalf("a refused envelope still put %q into the pane", got)
	}
	res, code, errs := r.send("--envelope", "job-7", "rec", "do the thing")
	if code != 0 || res.Outcome != "DELIVERED" || res.ID == "job-7" {
		t.Fatalf("send: exit %d %+v %s; want DELIVERED under a trigger id of its own", code, res, errs)
	}
	want := []string{"\x1b[200~[TRIGGER id=job-7]\ndo the thing\n[/TRIGGER]\x1b[201~", "\r"}
	if got := reads(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the pane received %q\nwant %q", got, want)
	}
	hist, _, _ := r.paneherd("history", "rec", "--json")
	if !strings.Contains(hist, res.ID+" DELIVERED (envelope job-7,") {
		t.Errorf("the audit does not name the envelope:\n%s", hist)
	}
}

func TestSendRefusesWhenSomeoneIsThere(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-quiet", "0s", "send-limit", "100")
	rec, reads := r.recorderPane(t, "", "rec")
	draft := r.tmux.NewWindow("work", "draft", showCommand(fixture(t, "gemini/22-READY-answer-done-unsent-text-in-input.ansi")))
	busy := r.tmux.NewWindow("work", "busy", showCommand(fixture(t, "claude/07-BUSY-streaming-answer.ansi")))
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	r.tmux.Run("set-option", "-p", "-t", draft, "@paneherd-pack", "gemini")
	r.tmux.Run("set-option", "-p", "-t", busy, "@paneherd-pack", "claude")
	r.start()
	r.waitState(rec, "READY")
	r.waitState(draft, "READY")
	r.waitState(busy, "BUSY")

	check := func(what string, wantCode int, wantOutcome string, args ...string) {
		t.Helper()
		res, code, errs := r.send(args...)
		if code != wantCode || res.Outcome != wantOutcome {
			t.Errorf("%s: exit %d %+v %s; want exit %d %s", what, code, res, errs, wantCode, wantOutcome)
		}
	}
	check("a draft in the input box", 14, "OPERATOR_BUSY", "draft", "hello")
	shell := r.tmux.NewWindow("work", "shell", "env -i PS1='user@host:~$ ' bash --norc --noprofile")
	r.tmux.Run("set-option", "-p", "-t", shell, "@paneherd-pack", "shell")
	r.waitState(shell, "READY")
	r.tmux.Run("send-keys", "-t", shell, "-l", "rm -rf ./build")
	r.waitFor("the draft is on screen", 15*time.Second, func() bool {
		return strings.Contains(r.tmux.Run("capture-pane", "-p", "-t", shell), "rm -rf ./build")
	})
	// The typing changed the screen: until the daemon has looked again and the screen has
	// settled, it reads the pane BUSY, and the send is refused as NOT_READY instead.
	r.waitState(shell, "READY")
	check("a command half-typed at a shell prompt", 14, "OPERATOR_BUSY", "shell", "hello")
	check("a busy pane", 17, "NOT_READY", "busy", "hello")
	check("no such worker", 10, "TARGET_NOT_FOUND", "nobody", "hello")
	r.tmux.Run("copy-mode", "-t", rec)
	check("copy mode", 14, "OPERATOR_BUSY", "rec", "hello")
	r.tmux.Run("send-keys", "-t", rec, "-X", "cancel")
	r.tmux.Run("select-pane", "-d", "-t", rec)
	check("input off", 12, "SEND_KEYS_ERROR", "rec", "hello")
	r.tmux.Run("select-pane", "-e", "-t", rec)
	r.tmux.Run("set-option", "-w", "-t", rec, "synchronize-panes", "on")
	check("synchronized panes", 12, "SEND_KEYS_ERROR", "rec", "hello")
	r.tmux.Run("set-option", "-w", "-t", rec, "synchronize-panes", "off")
	if got := reads(); len(got) != 0 {
		t.Errorf("a refused send still put %q into the pane", got)
	}
	if _, errs, code := r.paneherd("send", "rec", "--force", "x"); code != 2 || !strings.Contains(errs, "--force needs --reason") {
		t.Errorf("--force without --reason: exit %d %s", code, errs)
	}
	if _, errs, code := r.paneherd("send", "rec", strings.Repeat("x", 70_000)); code != 1 || !strings.Contains(errs, "longer than") {
		t.Errorf("an oversize prompt: exit %d %s", code, errs)
	}
}

func TestSendDefersToATypingPersonThenForces(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-quiet", "2s", "send-recheck", "200ms", "send-defer-max", "3s")
	rec, reads := r.recorderPane(t, "", "rec")
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	typing := r.tmux.NewWindow("work", "typing", "exec cat >/dev/null")
	r.tmux.Run("select-window", "-t", typing)
	attachViewer(t, r, "work")
	r.start()
	r.waitState(rec, "READY")

	// A person types in another pane of the session the whole time.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			// Not viewer.Run: its Fatal must not fire from here once the test has ended.
			r.viewer.Server.Run(context.Background(), nil, "send-keys", "-t", "view", "x")
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	}()
	// The send must start while the person types, not before their first key: the
	// session's last activity is otherwise the attach, seconds ago on a loaded machine.
	r.waitFor("the person's typing reaches the session", 30*time.Second, func() bool {
		return strings.Contains(r.tmux.Run("capture-pane", "-p", "-t", typing), "x")
	})
	start := time.Now()
	res, code, errs := r.send("rec", "do the thing")
	if code != 15 || res.Outcome != "DEFER_TIMEOUT" || time.Since(start) < 3*time.Second {
		t.Errorf("send while a person types: exit %d %+v %s after %v; want DEFER_TIMEOUT after the 3s limit", code, res, errs, time.Since(start))
	}
	res, code, errs = r.send("rec", "--force", "--reason", "release is blocked", "do the thing")
	if code != 0 || res.Outcome != "DELIVERED" || len(reads()) == 0 {
		t.Errorf("forced send: exit %d %+v %s", code, res, errs)
	}
	hist, _, _ := r.paneherd("history", "rec", "--json")
	if !strings.Contains(hist, "DEFER_TIMEOUT") || !strings.Contains(hist, "forced: release is blocked") {
		t.Errorf("history lacks the deferred and the forced send:\n%s", hist)
	}
}

func TestSendQueuesUntilReadyAndRateLimits(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-quiet", "0s", "send-limit", "2")
	rec, reads := r.recorderPane(t, "", "rec", "-busy", "3s")
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	r.start()
	r.waitState(rec, "BUSY")
	queued, code, _ := r.send("rec", "--queue", "when you are free")
	if code != 0 || queued.Outcome != "QUEUED" {
		t.Fatalf("queued send: exit %d %+v", code, queued)
	}
	r.waitFor("the queued prompt arrives once the pane is READY", 30*time.Second, func() bool {
		return strings.Contains(strings.Join(reads(), ""), "when you are free")
	})
	// The keys arrive before the delivery ends (it waits for the pane to acknowledge);
	// until then the pane refuses another action as one under way, which is not the
	// rate limit this test is after.
	r.waitFor("the queued prompt's delivery is audited", 30*time.Second, func() bool {
		hist, _, _ := r.paneherd("history", "rec", "--json")
		return strings.Contains(hist, queued.ID+" DELIVERED")
	})
	r.waitState(rec, "READY")
	if res, code, errs := r.send("rec", "second"); code != 0 || res.Outcome != "DELIVERED" {
		t.Fatalf("second action within a minute with a limit of 2: exit %d %+v %s", code, res, errs)
	}
	res, code, _ := r.send("rec", "third")
	if code != 16 || res.Outcome != "TRIGGER_RATE_LIMITED" {
		t.Errorf("third action within a minute with a limit of 2: exit %d %+v", code, res)
	}
}
