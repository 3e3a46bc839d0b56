package packs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paneherd/paneherd/internal/screen"
)

// Context says how full the CLI's context window is and how to tell (docs/context.md):
// its own figure on screen, and its models' windows, which turn the tokens its transcript
// or session file counts into a percent.
type Context struct {
	// Screen matches the figure the CLI draws ("97% context used"): its group named used
	// or left (the first that took part, when alternatives each name one) is a whole
	// percent of the window. It is looked for on the screen's last
	// ContextLines lines that are not blank, ignored lines included (a footer), the
	// lowest match counting.
	Screen *Pattern `toml:"screen"`
	// Windows are its models' context windows; the first whose pattern matches the
	// model's name counts. A model none matches has no window: its tokens are told, no
	// percent.
	Windows []Window `toml:"windows"`
}

// Window is one model's (or one family's) context window.
type Window struct {
	Model  *Pattern `toml:"model"`  // on the model's name as the agent gives it
	Tokens int64    `toml:"tokens"` // the window, in tokens
}

// ContextLines is how many lines from the bottom of a screen (blank ones aside) may hold
// the CLI's context figure: a footer's, not a line of the conversation above it.
const ContextLines = 3

// ScreenContext is the context figure read on a screen.
type ScreenContext struct {
	UsedPct int  // percent of the window in use
	Shown   bool // the screen shows one; false: UsedPct means nothing
}

// Window is the context window of model in tokens, from the pack's table; 0: not known.
func (p *Pack) Window(model string) int64 {
	if model == "" {
		return 0
	}
	for _, w := range p.Context.Windows {
		if w.Model.MatchString(model) {
			return w.Tokens
		}
	}
	return 0
}

// screenContext reads the CLI's context figure on the last lines of s.
func (p *Pack) screenContext(s screen.Screen) ScreenContext {
	pat := p.Context.Screen
	if pat == nil {
		return ScreenContext{}
	}
	looked := 0
	for i := len(s.Lines) - 1; i >= 0 && looked < ContextLines; i-- {
		text := s.Lines[i].Text
		if strings.TrimSpace(text) == "" {
			continue
		}
		looked++
		if c, ok := readPercent(pat, text); ok {
			return c
		}
	}
	return ScreenContext{}
}

// readPercent reads pat's used or left group on one line.
func readPercent(pat *Pattern, text string) (ScreenContext, bool) {
	m := pat.FindStringSubmatch(text)
	if m == nil {
		return ScreenContext{}, false
	}
	for i, name := range pat.SubexpNames() {
		if (name != "used" && name != "left") || m[i] == "" {
			continue
		}
		v, err := strconv.Atoi(m[i])
		if err != nil || v > 100 {
			return ScreenContext{}, false
		}
		if name == "left" {
			v = 100 - v
		}
		return ScreenContext{UsedPct: v, Shown: true}, true
	}
	return ScreenContext{}, false
}

// checkContext checks what TOML cannot: the screen pattern names its percent, each window
// has a model and a size.
func (p *Pack) checkContext(data []byte) error {
	if pat := p.Context.Screen; pat != nil {
		named := false
		for _, name := range pat.SubexpNames() {
			named = named || name == "used" || name == "left"
		}
		if !named {
			return &Error{File: p.Source, Line: lineOf(data, "screen ", "screen="),
				Msg: "[context] screen: name one group used or left, the percent the CLI shows (such as '(?P<used>\\d+)% context used')"}
		}
	}
	for i, w := range p.Context.Windows {
		if w.Model == nil || w.Tokens <= 0 {
			return &Error{File: p.Source, Line: nthLine(data, "[[context.windows]]", i),
				Msg: fmt.Sprintf("[[context.windows]] %d: give model, a pattern on the model's name, and tokens, its window (more than 0)", i+1)}
		}
	}
	return nil
}
