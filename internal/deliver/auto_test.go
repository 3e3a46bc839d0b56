package deliver

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/policy"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// autoPolicy approves every kind of dialog there is, unless a deny rule says otherwise:
// only the engine's checks stand between it and a key.
const autoPolicy = `
[[rules]]
name = "everything"
action = "approve"
kinds = ["command", "edit", "fetch", "mcp", "trust", "plan"]
allow_chained = true
`

// auditLog collects what the engine audits.
type auditLog struct {
	mu  sync.Mutex
	all []wire.Trigger
}

func (l *auditLog) add(t wire.Trigger) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, t)
	return nil
}

func (l *auditLog) triggers() []wire.Trigger {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]wire.Trigger(nil), l.all...)
}

// autoOn shows a fixture in a recording stand-in and returns the answer by rules there
// (dry run or not), what the stand-in received, and the audit.
func autoOn(t *testing.T, fixture, pack, rules string, limit int) (func(dryRun bool) Answered, func() string, *auditLog) {
	t.Helper()
	e, pane, received := standIn(t, fixture, pack)
	log := &auditLog{}
	e.Audit = log.add
	f, err := policy.Parse("policy.toml", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	a := &Auto{Engine: e, Window: time.Minute}
	apply := func(dryRun bool) Answered {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return a.Apply(ctx, Rules{File: f, Limit: limit, DryRun: dryRun}, policy.Pane{ID: pane, Dir: "/tmp"}, "auto")
	}
	return apply, received, log
}

// TestAutoPressesNothingButALiveDialog: with a policy that approves every kind, a stale
// dialog and a question only a person answers get zero bytes; the person is asked.
func TestAutoPressesNothingButALiveDialog(t *testing.T) {
	for _, fixture := range []struct{ file, pack string }{
		{"gemini/40-READY-after-trust-restart-stale-dialog-above.ansi", "gemini"},
		{"claude/40-NEEDS_CONFIRMATION-ask-user-question-dialog.ansi", "claude"},
	} {
		t.Run(fixture.file, func(t *testing.T) {
			apply, received, log := autoOn(t, fixture.file, fixture.pack, autoPolicy, 10)
			got := apply(false)
			if !got.Asked() || got.Decision.Action != policy.Ask {
				t.Fatalf("%+v: want the person asked", got)
			}
			if r := received(); r != "" {
				t.Fatalf("the agent received %q; nothing may be pressed", r)
			}
			for _, tr := range log.triggers() {
				if tr.Outcome == string(outcome.Answered) || tr.Rule != "" {
					t.Fatalf("audited %+v", tr)
				}
			}
		})
	}
}

// TestAutoAnswersByRule: approve presses the pack's approve key (never always), deny its
// deny key, each audited with the rule that decided.
func TestAutoAnswersByRule(t *testing.T) {
	cases := []struct{ name, rules, keys, kind string }{
		{"approve", autoPolicy, "1", "policy-approve"},
		{"deny", autoPolicy + "\n[[rules]]\nname = \"no-echo\"\naction = \"deny\"\ncommands = [\"echo *\"]\n", "\x1b", "policy-deny"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			apply, received, log := autoOn(t, noDescription, "claude", c.rules, 10)
			got := apply(false)
			tmuxtest.WaitFor(t, 10*time.Second, func() bool { return received() == c.keys })
			// The stand-in never closes its dialog: the keys went, and it is still shown.
			if got.Result.Outcome != outcome.DialogStillShown {
				t.Fatalf("%+v", got)
			}
			audit := log.triggers()
			want := map[string]string{"approve": "everything", "deny": "no-echo"}[c.name]
			if len(audit) != 1 || audit[0].Rule != want || audit[0].Kind != c.kind || audit[0].Choice == packs.ChoiceAlways {
				t.Fatalf("audit %+v; want one %s by %s", audit, c.kind, want)
			}
		})
	}
}

// TestAutoDryRunPressesNothing: a dry run decides on the same steady look, records what
// it would have done and by which rule, and presses nothing.
func TestAutoDryRunPressesNothing(t *testing.T) {
	apply, received, log := autoOn(t, noDescription, "claude", autoPolicy, 10)
	got := apply(true)
	if got.Decision.Action != policy.Approve || got.Result.Outcome != outcome.DryRun || !got.Asked() {
		t.Fatalf("%+v", got)
	}
	audit := log.triggers()
	if len(audit) != 1 || audit[0].Outcome != string(outcome.DryRun) || audit[0].Rule != "everything" || !strings.Contains(audit[0].Reason, "everything") {
		t.Fatalf("audit %+v", audit)
	}
	if r := received(); r != "" {
		t.Fatalf("the agent received %q in a dry run", r)
	}
}

// TestAutoRateLimitStopsALoop: a dialog that comes back after every approval is answered
// Limit times within the window; then a person is asked and nothing more is pressed.
func TestAutoRateLimitStopsALoop(t *testing.T) {
	const limit = 2
	apply, received, log := autoOn(t, noDescription, "claude", autoPolicy, limit)
	for i := range limit + 2 {
		got := apply(false)
		if asked := got.Decision.Action == policy.Ask; asked != (i >= limit) {
			t.Fatalf("answer %d: %+v", i+1, got)
		}
	}
	want := strings.Repeat("1", limit)
	tmuxtest.WaitFor(t, 10*time.Second, func() bool { return received() == want })
	if n := len(log.triggers()); n != limit {
		t.Fatalf("%d answers audited, want %d: past the limit nothing is pressed", n, limit)
	}
}

// noDescription is a real Claude Bash dialog without the description line under its
// command, as Claude draws it when the model gives none: only then is the command read
// exactly, so a rule can decide it (with one, the policy asks).
const noDescription = "screens/claude/bash-dialog-no-description.ansi"
