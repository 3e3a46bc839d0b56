package contextuse

import (
	"bytes"
	"encoding/json"
)

// geminiFormat reads a Gemini CLI session file (~/.gemini/tmp/PROJECT/chats/
// session-….jsonl, its hooks' transcript_path): a log of messages and "$set" updates.
// Each answer ("type":"gemini") carries its request's tokens and the model; an answer
// updated later (its tool calls added) comes again under its id.
type geminiFormat struct {
	lastID          string
	lastIn, lastOut int64
}

type geminiLine struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Model  string `json:"model"`
	Tokens *struct {
		Input    int64 `json:"input"` // cached included
		Output   int64 `json:"output"`
		Thoughts int64 `json:"thoughts"`
	} `json:"tokens"`
}

var geminiTokens = []byte(`"tokens"`)

func (g *geminiFormat) reset() { *g = geminiFormat{} }

func (g *geminiFormat) line(b []byte, u *usage) {
	if !bytes.Contains(b, geminiTokens) {
		return
	}
	var l geminiLine
	if json.Unmarshal(b, &l) != nil || l.Type != "gemini" || l.Tokens == nil {
		return
	}
	in, out := l.Tokens.Input, l.Tokens.Output+l.Tokens.Thoughts
	if l.ID != "" && l.ID == g.lastID {
		u.in, u.out = u.in-g.lastIn, u.out-g.lastOut
	}
	g.lastID, g.lastIn, g.lastOut = l.ID, in, out
	u.in, u.out = u.in+in, u.out+out
	u.tokens, u.model = in, l.Model
}
