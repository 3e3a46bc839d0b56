package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Context is how full a pane's agent's context window is, as the agent itself tells it
// (docs/context.md): its transcript or session file, else its screen. The zero Context
// is nothing told.
type Context struct {
	// Source says who told it: ContextTranscript, ContextSessionFile or ContextScreen.
	Source string `json:"source"`
	// UsedPct is the part of the model's window in use; unknown (absent) when the window
	// is not known (a model the packs' window table does not name).
	UsedPct Percent `json:"used_pct,omitzero"`
	// Tokens in the context now (the last request's input); 0: not told (a screen tells
	// a percent only).
	Tokens int64  `json:"tokens,omitempty"`
	Window int64  `json:"window,omitempty"` // the model's window in tokens; 0: not known
	Model  string `json:"model,omitempty"`  // as the agent names it ("claude-opus-4-8[1m]")
	// TokensIn and TokensOut are what the conversation has cost so far, all its requests'
	// input (cached included) and output; 0: not known (its file was met too long to read
	// from its start).
	TokensIn  int64 `json:"session_tokens_in,omitempty"`
	TokensOut int64 `json:"session_tokens_out,omitempty"`
}

// Sources of a Context.
const (
	ContextTranscript  = "transcript"   // Claude Code's transcript (its hooks name it)
	ContextSessionFile = "session-file" // Codex's or Gemini CLI's session file
	ContextScreen      = "screen"       // the CLI's footer, read by its pack
)

// Known reports whether anything was told.
func (c Context) Known() bool { return c.Source != "" }

// Percent is a whole percentage that may be unknown: the zero Percent is unknown, so a 0%
// told is kept apart from none told. In JSON it is a number, or null when unknown (a
// field of it wants omitzero).
type Percent struct {
	value int
	known bool
}

// PercentOf is the known percentage v.
func PercentOf(v int) Percent { return Percent{value: v, known: true} }

// Get is the percentage and whether it is known.
func (p Percent) Get() (int, bool) { return p.value, p.known }

// IsZero reports an unknown percentage (omitzero leaves it out).
func (p Percent) IsZero() bool { return !p.known }

// String is "72%", or "-" when unknown.
func (p Percent) String() string {
	if !p.known {
		return "-"
	}
	return strconv.Itoa(p.value) + "%"
}

// MarshalJSON writes the number, or null.
func (p Percent) MarshalJSON() ([]byte, error) {
	if !p.known {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(p.value), 10), nil
}

// UnmarshalJSON reads a number, or null as unknown.
func (p *Percent) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*p = Percent{}
		return nil
	}
	var v int
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("percent: %w", err)
	}
	*p = PercentOf(v)
	return nil
}
