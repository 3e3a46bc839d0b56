package statusline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneherd/paneherd/store"
)

func TestRender(t *testing.T) {
	panes := []store.Pane{
		{Name: "api", State: "NEEDS_CONFIRMATION", Session: "b", WindowIndex: 0},
		{Name: "worker-a", State: "READY", Session: "a", WindowIndex: 2},
		{Name: "#(touch /tmp/pwned)", State: "BUSY", Session: "a", WindowIndex: 1},
		{Name: "#[fg=red]x #{pane_id}", State: "ERROR", Session: "a", WindowIndex: 3, Summary: "100% #fail"},
		{Name: "two\nlines\x1b[31m", State: "UNKNOWN", Session: "c"},
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"plain, ordered by session and window, escaped", Options{},
			"[##(touch /tmp/pwned): BUSY] [worker-a: READY] [##[fg=red]x ##{pane_id}: ERROR] [api: NEEDS_CONFIRMATION] [two lines?[31m: UNKNOWN]"},
		{"styles wrap badges; only styles are markup", Options{Styles: map[string]string{"READY": "fg=green"}, Hide: func(p store.Pane) bool { return p.State != "READY" }},
			"#[fg=green][worker-a: READY]#[default]"},
		{"format with icon and summary", Options{Format: "{icon}{name} #{summary}", Icons: map[string]string{"ERROR": "✖"},
			Hide: func(p store.Pane) bool { return p.State != "ERROR" }},
			"✖##[fg=red]x ##{pane_id} ##100% ##fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Render(panes, tt.opts); got != tt.want {
				t.Errorf("Render =\n %q\nwant\n %q", got, tt.want)
			}
		})
	}
}

func TestSnapshotRoundTripAndAtomicReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := ReadSnapshot(path); err == nil {
		t.Fatal("reading a missing snapshot succeeded")
	}
	want := Snapshot{Updated: time.Unix(1_700_000_000, 0).UTC(), PID: 7, Line: "[a: READY]",
		Panes: []store.Pane{{ID: "%1", Name: "a", State: "READY"}}}
	for i := 0; i < 3; i++ {
		if err := WriteSnapshot(path, want); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadSnapshot(path)
	if err != nil || got.Line != want.Line || got.PID != 7 || len(got.Panes) != 1 || !got.Updated.Equal(want.Updated) {
		t.Fatalf("ReadSnapshot = %+v, %v", got, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

// What tmux 3.3a shows of each of these was read off a real client (see the menu test in
// cmd/paneherd): expansion halves a run of '#' unless '[' follows it, then drawing halves
// what is left, rounding up, and reads an odd run before '[' as a style.
func TestEscapeFormat(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one # in the middle", "a#b", "a####b"},
		{"a run of #s", "a##b", "a########b"},
		{"a root prompt: tmux appends #[default] to a menu label after expanding it", "root@box:~#", "root@box:~####"},
		{"a style written by a pane stays text", "#[fg=red]x", "##[fg=red]x"},
		{"a job and a variable stay text", "#(rm -rf ~) #{pane_id}", "####(rm -rf ~) ####{pane_id}"},
		{"controls are cleaned", "a\nb\x1b", "a b?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EscapeFormat(tt.in); got != tt.want {
				t.Errorf("EscapeFormat(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnexpand(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a variable is expanded one step later", "run #{q:client_name}", "run ##{q:client_name}"},
		{"a style is left for drawing", "#[fg=red]x##[y", "#[fg=red]x##[y"},
		{"a run at the end", "x###", "x######"},
		{"no # at all", "switch-client -t %3", "switch-client -t %3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unexpand(tt.in); got != tt.want {
				t.Errorf("Unexpand(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
