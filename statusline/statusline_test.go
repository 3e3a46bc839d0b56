package statusline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

func TestRender(t *testing.T) {
	panes := []wire.Pane{
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
		{"styles wrap badges; only styles are markup", Options{Styles: map[string]string{"READY": "fg=green", "BUSY": "fg=yellow"}},
			"#[fg=yellow][##(touch /tmp/pwned): BUSY]#[default] #[fg=green][worker-a: READY]#[default] [##[fg=red]x ##{pane_id}: ERROR] [api: NEEDS_CONFIRMATION] [two lines?[31m: UNKNOWN]"},
		{"format with icon and summary", Options{Format: "{icon}{name} #{summary}", Icons: map[string]string{"ERROR": "✖"}, Show: ShowAttention},
			"✖##[fg=red]x ##{pane_id} ##100% ##fail api ##"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Render(wire.Snapshot{Panes: panes}, tt.opts, time.Now()); got != tt.want {
				t.Errorf("Render =\n %q\nwant\n %q", got, tt.want)
			}
		})
	}
}

func TestRenderCutsLongNames(t *testing.T) {
	long := strings.Repeat("w", 10_000)
	tests := []struct {
		name, pane string
		max        int
		want       string
	}{
		{"short name untouched", "api", 24, "[api: READY]"},
		{"exactly the max untouched", "abcd", 4, "[abcd: READY]"},
		{"ten thousand characters", long, 24, "[" + strings.Repeat("w", 23) + "…: READY]"},
		{"no max, no cut", "abcdef", 0, "[abcdef: READY]"},
		{"max of one is the ellipsis", "abcdef", 1, "[…: READY]"},
		{"cut by runes, not bytes", "éééééé", 4, "[ééé…: READY]"},
		{"a # kept whole before the cut", "ab#cdef", 4, "[ab##…: READY]"},
		{"a # cut off whole", "abc#def", 4, "[abc…: READY]"},
		{"bidi marks do not count", "\u202eab\u2066cdef", 4, "[abc…: READY]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(wire.Snapshot{Panes: []wire.Pane{{Name: tt.pane, State: "READY"}}}, Options{NameMax: tt.max}, time.Now())
			if got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Render split a UTF-8 sequence: %q", got)
			}
		})
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"abcd", 1, "…"},
		{"abcd", 0, "abcd"},
		{"日本語テキスト", 4, "日本語…"},
		{"a\u0301bcd", 3, "a\u0301…"},
	}
	for _, tt := range tests {
		if got := Clip(tt.in, tt.max); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestCleanDropsBidiAndZeroWidth(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"embeddings and overrides", "a\u202ab\u202bc\u202cd\u202de\u202ef", "abcdef"},
		{"isolates", "\u2066x\u2067y\u2068z\u2069", "xyz"},
		{"marks", "l\u200er\u200fa\u061c", "lra"},
		{"a spoofed file name", "invoice\u202egnp.exe", "invoicegnp.exe"},
		{"zero-width characters", "ad\u200bmin\u2060\ufeff\U000E0041", "admin"},
		{"tabs and newlines become spaces", "a\tb\nc\rd", "a b c d"},
		{"other controls become ?", "a\x1bb\x00c\u0085d", "a?b?c?d"},
		{"other text untouched", "héllo 世界 ✔ \u200d", "héllo 世界 ✔ \u200d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSnapshotRoundTripAndAtomicReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshot.json")
	if _, err := wire.ReadSnapshot(path); err == nil {
		t.Fatal("reading a missing snapshot succeeded")
	}
	want := wire.Snapshot{Updated: time.Unix(1_700_000_000, 0).UTC(), PID: 7, Line: "[a: READY]",
		Panes: []wire.Pane{{ID: "%1", Name: "a", State: "READY"}}}
	for i := 0; i < 3; i++ {
		if err := wire.WriteSnapshot(path, want); err != nil {
			t.Fatal(err)
		}
	}
	got, err := wire.ReadSnapshot(path)
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
			if got := tmux.Unexpand(tt.in); got != tt.want {
				t.Errorf("Unexpand(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
