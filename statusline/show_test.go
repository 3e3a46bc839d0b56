package statusline

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// fleet is eight agents and two shells, as a person running many agents has them.
func fleet() []wire.Pane {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	return []wire.Pane{
		{ID: "%1", Name: "api", State: "NEEDS_CONFIRMATION", Pack: "claude", Session: "a", WindowIndex: 1, Since: ago(time.Minute)},
		{ID: "%2", Name: "web", State: "NEEDS_CONFIRMATION", Pack: "codex", Session: "a", WindowIndex: 2, Since: ago(time.Minute)},
		{ID: "%3", Name: "docs#1", State: "ERROR", Pack: "gemini", Session: "a", WindowIndex: 3, Since: ago(time.Hour)},
		{ID: "%4", Name: "tests", State: "BUSY", Pack: "claude", Session: "a", WindowIndex: 4},
		{ID: "%5", Name: "lint", State: "BUSY", Pack: "codex", Session: "a", WindowIndex: 5},
		{ID: "%6", Name: "fresh", State: "READY", Pack: "claude", Session: "b", WindowIndex: 1, Since: ago(2 * time.Minute)},
		{ID: "%7", Name: "old", State: "READY", Pack: "claude", Session: "b", WindowIndex: 2, Since: ago(time.Hour)},
		{ID: "%8", Name: "frozen", State: "STALLED", Pack: "opencode", Session: "b", WindowIndex: 3, Since: ago(time.Hour)},
		{ID: "%9", Name: "zsh", State: "READY", Pack: "shell", Session: "c", WindowIndex: 1, Since: ago(time.Second)},
		{ID: "%10", Name: "make", State: "BUSY", Pack: "shell", Session: "c", WindowIndex: 2},
	}
}

func TestShow(t *testing.T) {
	for _, tc := range []struct {
		show, want string
	}{
		{ShowAll, "[api: NEEDS_CONFIRMATION] [web: NEEDS_CONFIRMATION] [docs##1: ERROR] [tests: BUSY] [lint: BUSY] [fresh: READY] [old: READY] [frozen: STALLED] [zsh: READY] [make: BUSY]"},
		{ShowActive, "[api: NEEDS_CONFIRMATION] [web: NEEDS_CONFIRMATION] [docs##1: ERROR] [tests: BUSY] [lint: BUSY] [fresh: READY] [old: READY] [frozen: STALLED] [make: BUSY]"},
		// A dialog, an error, a stall, an agent READY within NewlyReady; not an agent
		// READY for an hour, not a shell's READY, never BUSY.
		{ShowAttention, "[api: NEEDS_CONFIRMATION] [web: NEEDS_CONFIRMATION] [docs##1: ERROR] [fresh: READY] [frozen: STALLED]"},
	} {
		t.Run(tc.show, func(t *testing.T) {
			if got := Render(wire.Snapshot{Panes: fleet()}, Options{Show: tc.show}, now); got != tc.want {
				t.Errorf("Render =\n %q\nwant\n %q", got, tc.want)
			}
		})
	}
}

func TestCompact(t *testing.T) {
	icons := map[string]string{"READY": "✔", "BUSY": "…", "NEEDS_CONFIRMATION": "?", "ERROR": "✖", "STALLED": "⏸", "OFFLINE": "⨯", "UNKNOWN": "·"}
	styles := map[string]string{"NEEDS_CONFIRMATION": "fg=red,bold", "READY": "fg=green"}
	many := fleet()
	for i := range 3 {
		many = append(many, wire.Pane{ID: "%x", Name: "w" + string(rune('a'+i)), State: "NEEDS_CONFIRMATION", Session: "d", WindowIndex: i})
	}
	for _, tc := range []struct {
		name  string
		panes []wire.Pane
		opts  Options
		want  string
	}{
		{"counts, attention last with names, escaped", fleet(), Options{Layout: LayoutCompact, Icons: icons},
			"✔3 …3 ⏸1 frozen ✖1 docs##1 ?2 api,web"},
		{"styles wrap each group", fleet(), Options{Layout: LayoutCompact, Icons: icons, Styles: styles, Show: ShowActive},
			"#[fg=green]✔2#[default] …3 ⏸1 frozen ✖1 docs##1 #[fg=red,bold]?2 api,web#[default]"},
		{"attention only", fleet(), Options{Layout: LayoutCompact, Icons: icons, Show: ShowAttention},
			"✔1 ⏸1 frozen ✖1 docs##1 ?2 api,web"},
		{"more than three names", many, Options{Layout: LayoutCompact, Icons: icons, Show: ShowAttention, NameMax: 3},
			"✔1 ⏸1 fr… ✖1 do… ?5 api,web,wa,+2"},
		{"a name cannot inject markup", []wire.Pane{{Name: "#[fg=red]#(x)", State: "ERROR"}}, Options{Layout: LayoutCompact, Icons: map[string]string{"ERROR": "#!"}},
			"##!1 ##[fg=red]##(x)"},
		{"nothing to show", nil, Options{Layout: LayoutCompact, Icons: icons}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Render(wire.Snapshot{Panes: tc.panes}, tc.opts, now); got != tc.want {
				t.Errorf("Render =\n %q\nwant\n %q", got, tc.want)
			}
		})
	}
}

// An agent's READY stops being news NewlyReady after it began: the line must be rendered
// again then, though nothing changes state.
func TestNextChange(t *testing.T) {
	id, at := Options{Show: ShowAttention}.NextChange(fleet(), now)
	if id != "%6" || !at.Equal(now.Add(8*time.Minute)) {
		t.Errorf("NextChange = %s at %v; want %%6 at %v", id, at, now.Add(8*time.Minute))
	}
	if _, at := (Options{Show: ShowAll}).NextChange(fleet(), now); !at.IsZero() {
		t.Errorf("show all changes by itself at %v", at)
	}
	if got := Render(wire.Snapshot{Panes: fleet()}, Options{Show: ShowAttention, Layout: LayoutCompact}, now.Add(8*time.Minute)); got != "1 frozen 1 docs##1 2 api,web" {
		t.Errorf("after the READY aged: %q", got)
	}
}
