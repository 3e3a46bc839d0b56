package packs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

// The CLIs' own context figures, on real screens (Claude Code 2.1.197's footer near a full
// window, Codex 0.171.0's status line with context-remaining, opencode 1.18.33's footer at
// its idle prompt and at work, in a wide pane and a narrow one): read from the last lines
// only, "left" turned into used, and the screen's state read as before.
func TestScreenContext(t *testing.T) {
	for _, tc := range []struct {
		pack, file string // file: under testdata, without .txt
		want       ScreenContext
		state      state.State
	}{
		{"claude", "screens/claude/ready-context-used", ScreenContext{UsedPct: 98, Shown: true}, state.Ready},
		{"codex", "screens/codex/ready-status-line-context", ScreenContext{UsedPct: 76, Shown: true}, state.Ready},
		{"claude", "screens/claude/ready-prose-question", ScreenContext{}, state.Ready},
		{"opencode", "fixtures/opencode/13-READY-after-approved-command-ran", ScreenContext{UsedPct: 0, Shown: true}, state.Ready},
		{"opencode", "fixtures/opencode/107-READY-after-deny-1.18.33-60x15", ScreenContext{UsedPct: 0, Shown: true}, state.Ready},
		{"opencode", "fixtures/opencode/04-BUSY-streaming-answer", ScreenContext{UsedPct: 0, Shown: true}, state.Busy},
		{"opencode", "fixtures/opencode/102-BUSY-thinking-1.18.33-60x15", ScreenContext{UsedPct: 0, Shown: true}, state.Busy},
		{"opencode", "fixtures/opencode/01-READY-welcome-empty-prompt", ScreenContext{}, state.Ready},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			p := mustBuiltin(t, tc.pack)
			r := p.Classify(screen.Parse(string(raw)))
			if r.Context != tc.want || r.State != tc.state {
				t.Errorf("Classify: context %+v, state %s; want %+v, %s", r.Context, r.State, tc.want, tc.state)
			}
			if got := p.Explain(screen.Parse(string(raw))).Result.Context; got != tc.want {
				t.Errorf("Explain: context %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Only a footer's figure counts: the same words higher on the screen are the
// conversation's (a prompt quoting them, an old /status). opencode's count and percent are
// read at any size of count or cost, and only where the footer's hints follow (a tool's
// "3 (60%) passed" is no context figure).
func TestScreenContextLastLines(t *testing.T) {
	const above = "  ┃  hello\n\n     Done.\n"
	for _, tc := range []struct {
		pack, name, screen string
		want               ScreenContext
	}{
		{"claude", "in the footer", "❯ hi\n\n  ? for shortcuts   40% context used\n\n", ScreenContext{UsedPct: 40, Shown: true}},
		{"claude", "quoted higher up", "> why 40% context used\n● answer\nline\n❯\n  ? for shortcuts", ScreenContext{}},
		{"claude", "not a percent", "❯\n  ? for shortcuts   400% context used", ScreenContext{}},
		{"opencode", "idle, thousands", above + "   ~/app                      12,345 (37%) · $1,234.56  ctrl+p commands", ScreenContext{UsedPct: 37, Shown: true}},
		{"opencode", "at work, a K count", above + "   ■■■■⬝⬝⬝⬝  esc interrupt   150.2K (75%) · $0.40  ctrl+p commands", ScreenContext{UsedPct: 75, Shown: true}},
		{"opencode", "no cost yet", above + "   ~/app   990 (1%)  ctrl+p commands", ScreenContext{UsedPct: 1, Shown: true}},
		{"opencode", "a tool's output", above + "     3 (60%) passed", ScreenContext{}},
	} {
		t.Run(tc.pack+"/"+tc.name, func(t *testing.T) {
			if got := mustBuiltin(t, tc.pack).Classify(screen.Parse(tc.screen)).Context; got != tc.want {
				t.Errorf("context %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The window table: the first pattern matching the model's name counts; a model none
// names has no window.
func TestWindow(t *testing.T) {
	claude, gemini, codex := mustBuiltin(t, "claude"), mustBuiltin(t, "gemini"), mustBuiltin(t, "codex")
	for _, tc := range []struct {
		pack  *Pack
		model string
		want  int64
	}{
		{claude, "claude-opus-4-8[1m]", 1_000_000},
		{claude, "claude-opus-4-8", 200_000},
		{claude, "", 0},
		{claude, "gpt-5.5", 0},
		{gemini, "gemini-3.1-pro-preview", 1_048_576},
		{codex, "gpt-5.5", 0}, // its session file tells the window
	} {
		if got := tc.pack.Window(tc.model); got != tc.want {
			t.Errorf("%s.Window(%q) = %d, want %d", tc.pack.Name, tc.model, got, tc.want)
		}
	}
}

// packs check refuses a context section it could not use, naming the line.
func TestContextCheck(t *testing.T) {
	const rules = "[[rules]]\nname = \"r\"\nstate = \"READY\"\nmatch = 'x'\n"
	for _, tc := range []struct{ name, body, want string }{
		{"screen without a named percent", "[context]\nscreen = '(\\d+)% used'\n" + rules, "name one group used or left"},
		{"window without tokens", "[[context.windows]]\nmodel = '^m'\n" + rules, "[[context.windows]] 1"},
		{"window without a model", "[[context.windows]]\ntokens = 5\n" + rules, "give model"},
		{"unknown key", "[context]\nscreens = 'x'\n" + rules, `unknown key "context.screens"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p", "p.toml", []byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.toml:") {
				t.Errorf("Parse: %v, want an error at a line saying %q", err, tc.want)
			}
		})
	}
	p, err := Parse("p", "p.toml", []byte("[context]\nscreen = '(?P<left>\\d+)% left'\n[[context.windows]]\nmodel = '^m'\ntokens = 5\n"+rules))
	if err != nil || p.Window("m1") != 5 {
		t.Fatalf("Parse: %v; window %d", err, p.Window("m1"))
	}
}
