package statusline

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// A pane's context use shows in its badge ({context}, which the default format has) and in
// the compact layout's group of its own, once it reaches ContextAt; unknown, below it, or
// with ContextAt 0 the line is as without it.
func TestRenderContext(t *testing.T) {
	ctx := func(pct int) wire.Context {
		return wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(pct), Tokens: 1}
	}
	panes := []wire.Pane{
		{Name: "api", State: "READY", Session: "a", WindowIndex: 0, Context: ctx(72)},
		{Name: "web", State: "BUSY", Session: "a", WindowIndex: 1, Context: ctx(91)},
		{Name: "docs", State: "READY", Session: "a", WindowIndex: 2, Context: wire.Context{Source: wire.ContextTranscript, Tokens: 5000}},
		{Name: "sh", State: "READY", Session: "a", WindowIndex: 3},
	}
	icons := map[string]string{"READY": "✔", "BUSY": "…"}
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"off", Options{}, "[api: READY] [web: BUSY] [docs: READY] [sh: READY]"},
		{"from 1%", Options{ContextAt: 1}, "[api: READY 72%] [web: BUSY 91%] [docs: READY] [sh: READY]"},
		{"past a threshold", Options{ContextAt: 80}, "[api: READY] [web: BUSY 91%] [docs: READY] [sh: READY]"},
		{"a format of one's own", Options{ContextAt: 1, Format: "{name}{context}"}, "api 72% web 91% docs sh"},
		{"compact, past a threshold", Options{ContextAt: 70, Layout: LayoutCompact, Icons: icons}, "✔3 …1 ctx web 91%,api 72%"},
		{"compact, none past it", Options{ContextAt: 95, Layout: LayoutCompact, Icons: icons}, "✔3 …1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Render(wire.Snapshot{Panes: panes}, tc.opts, time.Now()); got != tc.want {
				t.Errorf("Render = %q, want %q", got, tc.want)
			}
		})
	}
}
