package statusline

import (
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
)

// TestRenderHosts: other machines' panes follow this server's, named "host/name"; a
// host that cannot be reached or speaks another protocol says so in one badge; stale
// panes are marked and dim; a remote pane's name and summary, and a host's name, are
// escaped as a local pane's are.
func TestRenderHosts(t *testing.T) {
	icons := map[string]string{"READY": "✔", "BUSY": "…", "NEEDS_CONFIRMATION": "?", "ERROR": "✖"}
	styles := map[string]string{"NEEDS_CONFIRMATION": "fg=red,bold", "OFFLINE": "fg=colour244"}
	local := []wire.Pane{{ID: "%1", Name: "web", State: "READY", Session: "a"}}
	devbox := []wire.Pane{
		{ID: "%1", Host: "devbox", Name: "api", State: "NEEDS_CONFIRMATION", Session: "a", WindowIndex: 1},
		{ID: "%2", Host: "devbox", Name: "#(touch x)", State: "BUSY", Session: "a", WindowIndex: 2, Summary: "#[fg=red]hi"},
		{ID: "%3", Host: "devbox", Name: "t1", State: "READY", Session: "a", WindowIndex: 3},
		{ID: "%4", Host: "devbox", Name: "t2", State: "READY", Session: "a", WindowIndex: 4},
	}
	up := func(name string) wire.Host { return wire.Host{Name: name, State: wire.HostUp} }
	for _, tc := range []struct {
		name string
		snap wire.Snapshot
		opts Options
		want string
	}{
		{"badges: host/name, escaped", wire.Snapshot{Panes: local, Remote: devbox, Hosts: []wire.Host{up("devbox")}}, Options{Styles: styles},
			"[web: READY] #[fg=red,bold][devbox/api: NEEDS_CONFIRMATION]#[default] [devbox/##(touch x): BUSY] [devbox/t1: READY] [devbox/t2: READY]"},
		{"a summary from a host is escaped", wire.Snapshot{Remote: devbox[1:2], Hosts: []wire.Host{up("devbox")}}, Options{Format: "{name} {summary}"},
			"devbox/##(touch x) ##[fg=red]hi"},
		{"compact: a group per host", wire.Snapshot{Panes: local, Remote: devbox, Hosts: []wire.Host{up("devbox")}}, Options{Layout: LayoutCompact, Icons: icons},
			"✔1 devbox ✔2 …1 ?1 api"},
		{"unreachable", wire.Snapshot{Panes: local, Hosts: []wire.Host{{Name: "devbox", State: wire.HostUnreachable, Why: "ssh: connect: refused"}}}, Options{Styles: styles},
			"[web: READY] #[fg=colour244][devbox: unreachable]#[default]"},
		{"incompatible", wire.Snapshot{Hosts: []wire.Host{{Name: "devbox", State: wire.HostIncompatible, Why: "paneherd 0.3 too old"}}}, Options{Layout: LayoutCompact},
			"[devbox: paneherd 0.3 too old]"},
		{"stale panes are marked and dim", wire.Snapshot{Remote: devbox[:2], Hosts: []wire.Host{{Name: "devbox", State: wire.HostStale}}}, Options{Styles: styles},
			"#[dim][devbox~/api: NEEDS_CONFIRMATION]#[default] #[dim][devbox~/##(touch x): BUSY]#[default]"},
		{"lost: the problem, and the panes as last heard", wire.Snapshot{Remote: devbox[:1], Hosts: []wire.Host{{Name: "devbox", State: wire.HostUnreachable}}}, Options{},
			"[devbox: unreachable] #[dim][devbox~/api: NEEDS_CONFIRMATION]#[default]"},
		{"stale compact", wire.Snapshot{Remote: devbox, Hosts: []wire.Host{{Name: "devbox", State: wire.HostStale}}}, Options{Layout: LayoutCompact, Icons: icons},
			"#[dim]devbox~#[default] #[dim]✔2#[default] #[dim]…1#[default] #[dim]?1 api#[default]"},
		{"connecting shows nothing", wire.Snapshot{Panes: local, Hosts: []wire.Host{{Name: "devbox", State: wire.HostConnecting}}}, Options{},
			"[web: READY]"},
		{"a hostile host name and reason are escaped", wire.Snapshot{Hosts: []wire.Host{{Name: "#[fg=red]", State: wire.HostIncompatible, Why: "paneherd #(x) too new"}}}, Options{},
			"[##[fg=red]: paneherd ##(x) too new]"},
		{"hosts in their order, each its own panes", wire.Snapshot{Remote: append([]wire.Pane{{ID: "%1", Host: "box2", Name: "b", State: "READY"}}, devbox[:1]...),
			Hosts: []wire.Host{up("devbox"), up("box2")}}, Options{},
			"[devbox/api: NEEDS_CONFIRMATION] [box2/b: READY]"},
		{"attention only: a host with nothing to show is left out", wire.Snapshot{Remote: devbox[1:], Hosts: []wire.Host{up("devbox")}}, Options{Layout: LayoutCompact, Show: ShowAttention, Icons: icons},
			""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Render(tc.snap, tc.opts, now); got != tc.want {
				t.Errorf("Render =\n %q\nwant\n %q", got, tc.want)
			}
		})
	}
}
