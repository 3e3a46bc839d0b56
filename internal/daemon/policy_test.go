package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/logfile"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/policy"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/supervisor"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// TestWhereOfAPane: the policy sees a managed worker's pane as managed, by the worker's
// name, in its workspace whatever folder the pane is in now; any other pane in its
// current folder. Rules for named workers and workspaces rest on it.
func TestWhereOfAPane(t *testing.T) {
	st := tempStore(t)
	if err := st.PutWorker(wire.Worker{Name: "api", PaneID: "%3", Workspace: "/src/api"}); err != nil {
		t.Fatal(err)
	}
	sup := supervisor.New(supervisor.DefaultConfig)
	sup.Store = st
	if err := sup.Load(); err != nil {
		t.Fatal(err)
	}
	d := &Daemon{sup: sup}
	cases := []struct {
		pane wire.Pane
		want policy.Pane
	}{
		{wire.Pane{ID: "%3", CWD: "/src/api/cmd"}, policy.Pane{ID: "%3", Managed: true, Worker: "api", Dir: "/src/api"}},
		{wire.Pane{ID: "%4", CWD: "/home/me/notes"}, policy.Pane{ID: "%4", Dir: "/home/me/notes"}},
	}
	for _, c := range cases {
		if got := policy.PaneOf(c.pane, d.sup.Workers()); got != c.want {
			t.Errorf("where(%s in %s) = %+v, want %+v", c.pane.ID, c.pane.CWD, got, c.want)
		}
	}
}

// TestTransitionLeavesTheDialogToThePersonWithoutAPolicy: off, on without a policy file,
// or on with a broken one, the policy takes no dialog: the notifier tells the person.
func TestTransitionLeavesTheDialogToThePersonWithoutAPolicy(t *testing.T) {
	ok := &policy.File{Rules: []policy.Rule{{Name: "tests", Action: policy.Approve, Commands: []string{"npm test"}}}}
	cases := []struct {
		name string
		mode string
		file *policy.File
	}{
		{"off", "off", ok},
		{"on without a file, or a broken one", "on", nil},
		{"dry-run without a file, or a broken one", "dry-run", nil},
	}
	tr := wire.Transition{PaneID: "%1", From: "BUSY", To: "NEEDS_CONFIRMATION"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &Daemon{rules: newRules(nil, nil, func(string) string { return "" })}
			d.rules.mode, d.rules.file = c.mode, c.file
			if d.transition(wire.Pane{ID: "%1"}, tr) {
				t.Errorf("the policy took the dialog; the person must be told of it")
			}
		})
	}
}

// TestPolicyAnswersADialogDrawnAtOnceAfterAnother: a pane whose next dialog is drawn as
// soon as one is answered never leaves NEEDS_CONFIRMATION, so no transition brings the
// next: the policy answers it too, up to its limit, then asks the person.
func TestPolicyAnswersADialogDrawnAtOnceAfterAnother(t *testing.T) {
	const limit = 3
	d, pane, received := dialogAfterDialog(t)
	f, err := policy.Parse("policy.toml", []byte("[[rules]]\nname = \"all\"\naction = \"approve\"\nkinds = [\"command\"]\nallow_chained = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	d.rules.mode, d.rules.file, d.rules.limit = "on", f, limit
	rec := wire.Pane{ID: pane, State: string(state.NeedsConfirmation)}
	if !d.transition(rec, wire.Transition{PaneID: pane, From: "BUSY", To: rec.State}) {
		t.Fatal("the policy did not take the dialog")
	}
	done := make(chan struct{})
	go func() { d.rules.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the policy still answers after a minute")
	}
	if got := received(); got != strings.Repeat("1", limit) {
		t.Fatalf("the agent received %q; want one approval per dialog, %d in all", got, limit)
	}
}

// dialogAfterDialog runs a stand-in agent that draws a new permission dialog (for another
// command) as soon as a key answers the last, and a daemon whose watcher reads the pane
// as NEEDS_CONFIRMATION throughout. received is every byte the agent got.
func dialogAfterDialog(t *testing.T) (*Daemon, string, func() string) {
	t.Helper()
	h := tmuxtest.New(t)
	// A real Claude Bash dialog without the description line under its command: only
	// then is the command read exactly, so a rule can approve it.
	fixture, err := filepath.Abs("../../packs/testdata/screens/claude/bash-dialog-no-description.ansi")
	if err != nil {
		t.Fatal(err)
	}
	rec, shown := filepath.Join(h.Dir, "received"), filepath.Join(h.Dir, "shown")
	script := fmt.Sprintf(`stty -icanon -echo min 1; i=0; while :; do i=$((i+1)); printf '\033[H\033[2J'; `+
		`printf '%%s' "$(sed "s/fake_output/out$i/g" %s)"; : > %s; dd bs=1 count=1 2>/dev/null >> %s; done`,
		tmux.ShellWord(fixture), tmux.ShellWord(shown), tmux.ShellWord(rec))
	pane := h.NewSession("work", "sh -c "+tmux.ShellWord(script))
	tmuxtest.WaitFor(t, 30*time.Second, func() bool { _, err := os.Stat(shown); return err == nil })
	claude, err := packs.Load("").Get("claude")
	if err != nil {
		t.Fatal(err)
	}
	e := deliver.New(h.Server, deliver.Config{Verify: 3 * time.Second, RateLimit: 100, RateWindow: time.Minute})
	e.Lookup = func(id string) (deliver.Pane, bool) {
		return deliver.Pane{ID: pane, State: state.NeedsConfirmation, Pack: claude}, id == pane
	}
	watched := func(id string) (wire.Pane, bool) {
		return wire.Pane{ID: pane, State: string(state.NeedsConfirmation)}, id == pane
	}
	log, err := logfile.Open(filepath.Join(t.TempDir(), "daemon.log"), "info")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	d := &Daemon{rules: newRules(e, watched, func(string) string { return "" }), log: log,
		notifier: notify.New(nil, nil, notify.Config{}), sup: supervisor.New(supervisor.DefaultConfig)}
	t.Cleanup(d.stopRules)
	received := func() string { b, _ := os.ReadFile(rec); return string(b) }
	return d, pane, received
}
