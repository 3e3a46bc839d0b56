package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bashDialog is a real Claude Code dialog asking to run
// `echo hello-from-fake-model > fake_output.txt && cat fake_output.txt`, without the
// description line under the command, as Claude draws it when the model gives none: with
// one, the command is not read exactly (it may be a second line of the command), and the
// policy asks.
func bashDialog(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "packs", "testdata", "screens", "claude", "bash-dialog-no-description.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writePolicy puts a policy file where the daemon looks for it and returns its path.
func (r *rig) writePolicy(text string) string {
	r.t.Helper()
	path := filepath.Join(r.home, "config", "paneherd", "policy.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// dialogPane starts a recorder in dir showing the Claude Bash dialog (after what flags
// ask for first), read by the claude pack, and returns its pane id and what it received.
func (r *rig) dialogPane(t *testing.T, dir, session, name string, flags ...string) (string, func() string) {
	t.Helper()
	flags = append(flags, "-screen", shellQuote(bashDialog(t)))
	pane, reads := r.recorderPaneIn(t, dir, session, name, flags...)
	r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", "claude")
	return pane, func() string { return strings.Join(reads(), "") }
}

// policyDecision is the daemon's log line of the policy's decision on a pane's dialog
// ("" until there is one): the action and the rule.
func (r *rig) policyDecision(pane string) string {
	for _, line := range strings.Split(r.daemonLog(), "\n") {
		var l struct{ Message, Pane, Action, Rule string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "policy" && l.Pane == pane {
			return l.Action + " " + l.Rule
		}
	}
	return ""
}

// historyHas waits until the pane's history holds an entry of kind whose detail says
// each of texts.
func (r *rig) historyHas(pane, kind string, texts ...string) {
	r.t.Helper()
	r.waitFor(fmt.Sprintf("%s's history holds %s %q", pane, kind, texts), 30*time.Second, func() bool {
		lines, _, _ := r.history(pane)
		for _, l := range lines {
			if strings.HasPrefix(l, pane+" "+kind+" ") && containsAll(l, texts) {
				return true
			}
		}
		return false
	})
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// noPolicyAnswer fails the test when the pane's history holds an automatic answer.
func (r *rig) noPolicyAnswer(pane string) {
	r.t.Helper()
	lines, _, _ := r.history(pane)
	for _, l := range lines {
		if strings.HasPrefix(l, pane+" policy-") {
			r.t.Errorf("%s was answered by the policy: %s", pane, l)
		}
	}
}

// realDir is a fresh folder as the pane's current path names it (no symlinks).
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPolicyAnswersByRule: with a policy file and @paneherd-policy on, the daemon answers
// a real Claude Bash dialog as soon as it shows, by the rule that decides: the approve
// rule's pane receives exactly the approve key and its history names the rule; where a
// deny rule matches the command, the deny key goes, though the approve rule matches too;
// where an ask rule applies, nothing at all is pressed.
func TestPolicyAnswersByRule(t *testing.T) {
	r := newRig(t)
	denyDir, askDir := realDir(t), realDir(t)
	r.writePolicy(fmt.Sprintf(`
[[rules]]
name = "fake-model-output"
action = "approve"
kinds = ["command"]
commands = ["echo hello-from-fake-model > fake_output.txt && cat fake_output.txt"]
allow_chained = true

[[rules]]
name = "no-cat-here"
action = "deny"
commands = ["cat *"]
dirs = [%q]

[[rules]]
name = "ask-here"
action = "ask"
kinds = ["command"]
dirs = [%q]
`, denyDir, askDir))
	r.setOptions("policy", "on")
	approved, approvedGot := r.dialogPane(t, realDir(t), "", "approved")
	denied, deniedGot := r.dialogPane(t, denyDir, "work", "denied")
	asked, askedGot := r.dialogPane(t, askDir, "work", "asked")
	r.start()

	r.waitFor("the approve key reaches the approved pane", 30*time.Second, func() bool { return approvedGot() != "" })
	r.historyHas(approved, "policy-approve", "(approve)", "by rule fake-model-output")
	if got := approvedGot(); got != "1" {
		t.Errorf("the approved pane received %q, want exactly the pack's approve key %q", got, "1")
	}
	r.waitFor("the deny key reaches the denied pane", 30*time.Second, func() bool { return deniedGot() != "" })
	r.historyHas(denied, "policy-deny", "(deny)", "by rule no-cat-here")
	if got := deniedGot(); got != "\x1b" {
		t.Errorf("the denied pane received %q, want exactly the pack's deny key %q", got, "\x1b")
	}
	r.waitFor("the policy decides the asked pane's dialog", 30*time.Second, func() bool { return r.policyDecision(asked) != "" })
	if d := r.policyDecision(asked); d != "ask ask-here" {
		t.Errorf("the asked pane's dialog was decided %q, want ask by ask-here", d)
	}
	if got := askedGot(); got != "" {
		t.Errorf("the asked pane received %q; a rule that asks presses nothing", got)
	}
	r.noPolicyAnswer(asked)
}

// TestPolicyDryRunPressesNothing: @paneherd-policy dry-run decides on the dialog and
// records what it would have done, by which rule, and presses nothing; doctor says the
// policy is in dry run.
func TestPolicyDryRunPressesNothing(t *testing.T) {
	r := newRig(t)
	file := r.writePolicy(`
[[rules]]
name = "fake-model-output"
action = "approve"
commands = ["echo hello-from-fake-model *"]
allow_chained = true
`)
	r.setOptions("policy", "dry-run")
	pane, got := r.dialogPane(t, "", "", "agent")
	r.start()

	r.historyHas(pane, "policy-dry-run", "DRY_RUN", "(approve)", "by rule fake-model-output")
	if keys := got(); keys != "" {
		t.Errorf("a dry run pressed %q", keys)
	}
	if d := r.policyDecision(pane); d != "approve fake-model-output" {
		t.Errorf("the dry run decided %q, want approve by fake-model-output", d)
	}
	lines, _ := r.doctor()
	wantLine(t, lines, "policy", "ok", "dry-run", "1 rule from "+file)
}

// TestBrokenPolicyAnswersNothing: a policy file that does not parse, with
// @paneherd-policy on, answers nothing on any pane (each dialog goes to the person),
// the daemon's log says so in one line naming the file and the line, and doctor fails
// the policy with the same.
func TestBrokenPolicyAnswersNothing(t *testing.T) {
	r := newRig(t)
	file := r.writePolicy(`
[[rules]]
name = "fake-model-output"
action = "approve"
commands = ["echo hello-from-fake-model *"
allow_chained = true
`)
	r.setOptions("policy", "on")
	withoutBus(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	attachViewer(t, r, "main") // on neither dialog: both are notified
	r.start()
	// Busy first: a first look at a dialog is a state, not news, and is not notified.
	first, firstGot := r.dialogPane(t, "", "main", "first", "-busy", "5s")
	second, secondGot := r.dialogPane(t, "", "main", "second", "-busy", "5s")
	for _, pane := range []string{first, second} {
		r.waitFor(pane+" is seen", 30*time.Second, func() bool { return r.status()[pane].State != "" })
		if st := r.status()[pane].State; st == "NEEDS_CONFIRMATION" {
			t.Fatalf("the daemon first saw %s already in its dialog: it must see it busy first", pane)
		}
	}

	// Told as without a policy: the person is to answer.
	for _, pane := range []string{first, second} {
		r.historyHas(pane, "notify", "needs-confirmation")
	}
	if a, b := firstGot(), secondGot(); a != "" || b != "" {
		t.Errorf("with a broken policy the panes received %q and %q; nothing may be pressed", a, b)
	}
	r.noPolicyAnswer(first)
	r.noPolicyAnswer(second)
	var said []string
	for _, line := range strings.Split(r.daemonLog(), "\n") {
		if strings.Contains(line, "policy file not loaded") {
			said = append(said, line)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], file+":6") {
		t.Errorf("the daemon log says of the policy %q; want one line naming %s:6", said, file)
	}
	lines, _ := r.doctor()
	wantLine(t, lines, "policy", "fail", file+":6", "nothing is answered automatically")
}
