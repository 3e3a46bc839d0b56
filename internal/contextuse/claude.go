package contextuse

import (
	"bytes"
	"encoding/json"
)

// claudeFormat reads Claude Code's transcript (~/.claude/projects/DIR/SESSION.jsonl), one
// JSON object a line. Each answer's lines ("type":"assistant") carry the model and the
// request's usage, the same on every line of one message (a text and a tool call are
// two lines); the context after it is the request's input, cache reads and cache writes.
// A compaction writes a "compact_boundary" line with what is left (postTokens).
// Subagents' lines (isSidechain) count another context.
type claudeFormat struct {
	lastID          string // the message the last answer line was of
	lastIn, lastOut int64  // what it added to the sums
}

type claudeLine struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	IsSidechain bool   `json:"isSidechain"`
	Message     struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage *struct {
			Input      int64 `json:"input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			Output     int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
	Compact struct {
		PostTokens int64 `json:"postTokens"`
	} `json:"compactMetadata"`
}

var (
	claudeUsage   = []byte(`"usage"`)
	claudeCompact = []byte(`"compact_boundary"`)
)

func (c *claudeFormat) reset() { *c = claudeFormat{} }

func (c *claudeFormat) line(b []byte, u *usage) {
	if !bytes.Contains(b, claudeUsage) && !bytes.Contains(b, claudeCompact) {
		return // most lines: a prompt, a tool's output, a snapshot of files
	}
	var l claudeLine
	if json.Unmarshal(b, &l) != nil || l.IsSidechain {
		return
	}
	switch {
	case l.Type == "system" && l.Subtype == "compact_boundary" && l.Compact.PostTokens > 0:
		u.tokens = l.Compact.PostTokens
	case l.Type == "assistant" && l.Message.Usage != nil && l.Message.Model != "<synthetic>":
		c.answer(l, u)
	}
}

// answer takes an answer's usage; a message's later lines replace what its earlier ones
// added to the sums.
func (c *claudeFormat) answer(l claudeLine, u *usage) {
	us := l.Message.Usage
	in := us.Input + us.CacheWrite + us.CacheRead
	if l.Message.ID != "" && l.Message.ID == c.lastID {
		u.in, u.out = u.in-c.lastIn, u.out-c.lastOut
	}
	c.lastID, c.lastIn, c.lastOut = l.Message.ID, in, us.Output
	u.in, u.out = u.in+in, u.out+us.Output
	u.tokens, u.model = in, l.Message.Model
}
