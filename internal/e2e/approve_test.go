package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestApprovePressesExactlyThePacksKey shows each real dialog in a recorder pane and
// checks that approve (or deny) sends exactly the pack's keys, and nothing on a screen
// that is not a dialog.
func TestApprovePressesExactlyThePacksKey(t *testing.T) {
	r := newRig(t)
	r.setOptions("send-limit", "100")
	cases := []struct {
		name, pack, fixture string
		args                []string
		wantCode            int
		wantKeys            string
	}{
		{"claude-bash", "claude", "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt", []string{"approve"}, 0, "1"},
		{"claude-edit", "claude", "claude/12-NEEDS_CONFIRMATION-write-file-permission-prompt.txt", []string{"approve", "--choice", "always"}, 0, "2"},
		{"claude-deny", "claude", "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt", []string{"deny"}, 0, "\x1b"},
		{"codex-run", "codex", "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt", []string{"approve"}, 0, "y"},
		{"gemini-trust", "gemini", "gemini/01-NEEDS_CONFIRMATION-trust-folder-dialog.txt", []string{"approve"}, 0, "1"},
		{"shell-yn", "shell", "bash/07-NEEDS_CONFIRMATION-read-p-continue-yN.txt", []string{"approve"}, 0, "y\r"},
		{"passphrase", "shell", "bash/11-NEEDS_CONFIRMATION-ssh-keygen-passphrase-prompt.txt", []string{"approve"}, 18, ""},
		{"not-a-dialog", "claude", "claude/06-READY-after-short-answer.txt", []string{"approve"}, 18, ""},
		{"no-always-here", "gemini", "gemini/01-NEEDS_CONFIRMATION-trust-folder-dialog.txt", []string{"approve", "--choice", "always"}, 18, ""},
		// A dialog left above the agent's fresh input box is history; a question is a
		// person's to answer: nothing pressed on either.
		{"stale-dialog", "gemini", "gemini/40-READY-after-trust-restart-stale-dialog-above.txt", []string{"approve"}, 18, ""},
		{"question", "claude", "claude/40-NEEDS_CONFIRMATION-ask-user-question-dialog.txt", []string{"approve"}, 18, ""},
		{"question-deny", "claude", "claude/40-NEEDS_CONFIRMATION-ask-user-question-dialog.txt", []string{"deny"}, 18, ""},
	}
	reads := map[string]func() []string{}
	for i, c := range cases {
		session := "work"
		if i == 0 {
			session = ""
		}
		pane, read := r.recorderPane(t, session, c.name, "-screen", shellQuote(fixture(t, c.fixture)))
		r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", c.pack)
		reads[c.name] = read
	}
	r.start()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.waitFor(c.name+" is classified", 30*time.Second, func() bool { return r.status()[paneOf(r, c.name)].State != "UNKNOWN" })
			out, errs, code := r.paneherd(append(c.args, c.name, "--json")...)
			if code != c.wantCode {
				t.Fatalf("%v: exit %d (%s %s), want %d", c.args, code, out, errs, c.wantCode)
			}
			got := strings.Join(reads[c.name](), "")
			if got != c.wantKeys {
				t.Errorf("%v pressed %q, want exactly %q", c.args, got, c.wantKeys)
			}
			var res struct{ Outcome string }
			json.Unmarshal([]byte(out), &res)
			if c.wantCode == 0 && res.Outcome != "ANSWERED" {
				t.Errorf("outcome %q", res.Outcome)
			}
		})
	}
	hist, _, _ := r.paneherd("history", "--json", "--limit", "200")
	if strings.Count(hist, "ANSWERED") != 6 || strings.Count(hist, "NOT_A_DIALOG") != 6 {
		t.Errorf("the audit does not hold every approval:\n%s", hist)
	}
}

func paneOf(r *rig, name string) string {
	for id, p := range r.status() {
		if p.Name == name {
			return id
		}
	}
	return ""
}

// TestApproveWithoutTargetTakesLongestWaiting: no TARGET, no current pane: the pane that
// has waited longest.
func TestApproveWithoutTargetTakesLongestWaiting(t *testing.T) {
	r := newRig(t)
	first, readFirst := r.recorderPane(t, "", "first", "-screen", shellQuote(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	r.tmux.Run("set-option", "-p", "-t", first, "@paneherd-pack", "codex")
	r.start()
	r.waitState(first, "NEEDS_CONFIRMATION")
	second, readSecond := r.recorderPane(t, "work", "second", "-screen", shellQuote(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	r.tmux.Run("set-option", "-p", "-t", second, "@paneherd-pack", "codex")
	r.waitState(second, "NEEDS_CONFIRMATION")
	if _, errs, code := r.paneherd("approve"); code != 0 {
		t.Fatalf("approve: exit %d %s", code, errs)
	}
	if strings.Join(readFirst(), "") != "y" || len(readSecond()) != 0 {
		t.Errorf("first got %q, second %q; want the longest waiting answered", readFirst(), readSecond())
	}
}

// TestWaitFinalStates runs wait against workers that end each way.
func TestWaitFinalStates(t *testing.T) {
	r := newRig(t)
	config := filepath.Join(r.home, "config", "paneherd", "packs")
	os.MkdirAll(config, 0o755)
	// A pack that calls a frozen "working on it" STALLED after a second.
	os.WriteFile(filepath.Join(config, "slow.toml"), []byte(`stall = "1s"
[[rules]]
name = "working"
state = "BUSY"
match = 'working on it'
[[rules]]
name = "prompt"
state = "READY"
match = 'recorder\$$'
region = "last:1"
`), 0o644)
	done, _ := r.recorderPane(t, "", "done", "-busy", "2s")
	asks, _ := r.recorderPane(t, "work", "asks", "-busy", "2s", "-screen", shellQuote(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	stuck, _ := r.recorderPane(t, "work", "stuck", "-stall", "60s")
	idle, _ := r.recorderPane(t, "work", "idle")
	dies, _ := r.recorderPane(t, "work", "dies", "-busy", "60s")
	for pane, pack := range map[string]string{done: "shell", asks: "codex", stuck: "slow", idle: "shell", dies: "shell"} {
		r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", pack)
	}
	r.start()
	wait := func(args ...string) (string, int) {
		out, _, code := r.paneherd(append([]string{"wait", "--json"}, args...)...)
		var res struct {
			FinalState string `json:"final_state"`
		}
		json.Unmarshal([]byte(out), &res)
		return res.FinalState, code
	}
	type result struct {
		state string
		code  int
	}
	results := map[string]chan result{}
	for _, name := range []string{"done", "asks", "stuck", "dies"} {
		ch := make(chan result, 1)
		results[name] = ch
		go func(name string) {
			st, code := wait(name, "--timeout", "30s")
			ch <- result{st, code}
		}(name)
	}
	check := func(name string, want result) {
		select {
		case got := <-results[name]:
			if got != want {
				t.Errorf("wait %s = %+v, want %+v", name, got, want)
			}
		case <-time.After(40 * time.Second):
			t.Errorf("wait %s never returned", name)
		}
	}
	check("done", result{"completed", 0})
	check("asks", result{"needs_confirmation", 20})
	check("stuck", result{"stuck", 22})
	// Only now is the waiter on "dies" surely watching it (it started with the others, a
	// second ago at least): killed before it looked, the pane would be not_found.
	r.waitState(dies, "BUSY")
	r.tmux.Run("kill-pane", "-t", dies)
	check("dies", result{"crashed", 21})
	if st, code := wait("idle", "--timeout", "500ms"); st != "timeout" || code != 23 {
		t.Errorf("wait on a pane that never works: %s, exit %d", st, code)
	}
	if st, code := wait("nobody"); st != "not_found" || code != 10 {
		t.Errorf("wait on no pane: %s, exit %d", st, code)
	}
	if st, code := wait("idle", "--until", "READY"); st != "reached" || code != 0 {
		t.Errorf("wait --until READY on a READY pane: %s, exit %d", st, code)
	}
}
