package contextuse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// codexFormat reads a Codex CLI session file ($CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-TIME-THREAD.jsonl). Each turn's "token_count" event tells the last request's
// usage (what is in the context: Codex's own count for its "% context left"), the
// conversation's totals, and the model's window; "turn_context" names the model. After
// a compaction the next token_count tells what is left.
type codexFormat struct{}

type codexLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type  string `json:"type"`
		Model string `json:"model"`
		Info  *struct {
			Total  codexTokens `json:"total_token_usage"`
			Last   codexTokens `json:"last_token_usage"`
			Window int64       `json:"model_context_window"`
		} `json:"info"`
	} `json:"payload"`
}

type codexTokens struct {
	Input  int64 `json:"input_tokens"` // cached included
	Output int64 `json:"output_tokens"`
	Total  int64 `json:"total_tokens"`
}

var (
	codexTokenCount = []byte(`"token_count"`)
	codexTurn       = []byte(`"turn_context"`)
)

func (codexFormat) reset() {}

func (codexFormat) line(b []byte, u *usage) {
	if !bytes.Contains(b, codexTokenCount) && !bytes.Contains(b, codexTurn) {
		return
	}
	var l codexLine
	if json.Unmarshal(b, &l) != nil {
		return
	}
	p := l.Payload
	switch {
	case l.Type == "turn_context" && p.Model != "":
		u.model = p.Model
	case l.Type == "event_msg" && p.Type == "token_count" && p.Info != nil:
		u.tokens, u.window = p.Info.Last.Total, p.Info.Window
		u.in, u.out, u.total = p.Info.Total.Input, p.Info.Total.Output, true
	}
}

// threadID is a Codex conversation's id as its notify hook gives it (thread-id), a UUID.
var threadID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// CodexSessionFile finds the session file of a Codex conversation under home
// ($CODEX_HOME, else ~/.codex): sessions/YYYY/MM/DD/rollout-TIME-THREAD.jsonl. The
// thread's id is a UUIDv7, whose first 48 bits are when it began: that day's folder is
// looked in first (as UTC and as local time), every day's only when it is not there. ""
// when none is found.
func CodexSessionFile(home, thread string) string {
	if !threadID.MatchString(thread) {
		return ""
	}
	name := "rollout-*-" + thread + ".jsonl"
	sessions := filepath.Join(home, "sessions")
	if at, ok := uuid7Time(thread); ok {
		for _, t := range []time.Time{at.UTC(), at.Local()} {
			if m, _ := filepath.Glob(filepath.Join(sessions, t.Format("2006/01/02"), name)); len(m) > 0 {
				return m[0]
			}
		}
	}
	if m, _ := filepath.Glob(filepath.Join(sessions, "*", "*", "*", name)); len(m) > 0 {
		return m[0]
	}
	return ""
}

// uuid7Time is when a UUIDv7 was made: its first 48 bits, milliseconds since 1970.
func uuid7Time(id string) (time.Time, bool) {
	ms, err := strconv.ParseInt(strings.ReplaceAll(id[:13], "-", ""), 16, 64)
	if id[14] != '7' || err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}

// CodexHome is where Codex keeps its files: $CODEX_HOME, else ~/.codex.
func CodexHome(getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".codex")
}
