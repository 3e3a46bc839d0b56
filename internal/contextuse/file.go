// Package contextuse reads how full an agent's context window is from what the agent
// writes down itself: Claude Code's transcript, Codex's and Gemini CLI's session files
// (docs/context.md). A file is read on from where the last look stopped, never whole
// again; a pack's window table turns its tokens into a percent.
package contextuse

import (
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/internal/wire"
)

// Agents whose files it reads, by the names their hooks give (hooks.Claude, ...).
const (
	Claude = "claude"
	Codex  = "codex"
	Gemini = "gemini"
)

// usage is what a file has told so far of its conversation's tokens.
type usage struct {
	model  string
	tokens int64 // in the context after the last answer; 0: none told yet
	window int64 // the file's own word on the model's window (Codex); 0: none
	in     int64 // the conversation's input tokens so far
	out    int64 // and its output tokens
	// total: in and out are told as the conversation's totals, not summed here from its
	// lines (which counts only when the file was read from its start).
	total bool
}

// format reads one agent's lines.
type format interface {
	// line takes one line of the file into u.
	line(b []byte, u *usage)
	// reset forgets what it kept between lines: the file starts over.
	reset()
}

// File is one agent's transcript or session file being read.
type File struct {
	Agent  string
	source string // wire.ContextTranscript or wire.ContextSessionFile
	tail   Tail
	format format
	u      usage
	// named: the file's model does not say its window (Claude's "claude-opus-4-8" is
	// 200k or 1M tokens); only the model a hook named for it does.
	named bool
}

// Open prepares the file of an agent's conversation for reading; nothing is read yet.
func Open(agent, path string) (*File, error) {
	f := &File{Agent: agent, source: wire.ContextSessionFile, tail: Tail{Path: path}}
	switch agent {
	case Claude:
		f.source, f.format, f.named = wire.ContextTranscript, &claudeFormat{}, true
	case Codex:
		f.format = &codexFormat{}
	case Gemini:
		f.format = &geminiFormat{}
	default:
		return nil, fmt.Errorf("contextuse: no reader for %q's files", agent)
	}
	return f, nil
}

// Path is the file's path.
func (f *File) Path() string { return f.tail.Path }

// BytesRead counts the bytes its reads have cost.
func (f *File) BytesRead() int64 { return f.tail.BytesRead }

// Read takes in what was appended since the last Read (MaxRead at most).
func (f *File) Read() error {
	return f.tail.Read(func() {
		f.u = usage{}
		f.format.reset()
	}, func(b []byte) { f.format.line(b, &f.u) })
}

// Context is what the file told so far: nothing before its first answer's usage. window
// gives a model's window (a pack's table) when the file does not; hint is the model as
// the agent's hooks named it for this file, which may say more than the file
// ("claude-opus-4-8[1m]" for a file's "claude-opus-4-8": a 1M-token window), used while it
// extends the file's. A Claude transcript without a hint tells its tokens and no window:
// its model's name does not say which one.
func (f *File) Context(window func(model string) int64, hint string) wire.Context {
	u := f.u
	if u.tokens <= 0 {
		return wire.Context{}
	}
	model := u.model
	hinted := model != "" && strings.HasPrefix(hint, model)
	if hinted {
		model = hint
	}
	c := wire.Context{Source: f.source, Tokens: u.tokens, Model: model}
	c.Window = u.window
	if c.Window == 0 && window != nil && (hinted || !f.named) {
		c.Window = window(model)
	}
	c.UsedPct = usedPct(u.tokens, c.Window)
	if u.total || f.tail.Whole() {
		c.TokensIn, c.TokensOut = u.in, u.out
	}
	return c
}

// usedPct is tokens as a whole percent of window, rounded down; unknown when the window
// is, and when the tokens overflow it: then the window is not the model's (a model known
// by a name its larger window does not show), and no figure beats a wrong one.
func usedPct(tokens, window int64) wire.Percent {
	if window <= 0 || tokens > window {
		return wire.Percent{}
	}
	return wire.PercentOf(int(tokens * 100 / window))
}
