package daemon

import (
	"testing"

	"github.com/paneherd/paneherd/internal/policy"
	"github.com/paneherd/paneherd/internal/supervisor"
	"github.com/paneherd/paneherd/internal/wire"
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
		if got := d.where(c.pane); got != c.want {
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
			d := &Daemon{rules: newRules(nil, func(string) string { return "" })}
			d.rules.mode, d.rules.file = c.mode, c.file
			if d.transition(wire.Pane{ID: "%1"}, tr) {
				t.Errorf("the policy took the dialog; the person must be told of it")
			}
		})
	}
}
