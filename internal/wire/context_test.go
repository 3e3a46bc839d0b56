package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// A percent told as 0 is kept apart from one not told: the first is written, the second
// left out, and both read back as they were. A pane with no context has no "context".
func TestContextJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  Context
		want string // in the pane's JSON; "" with none: no "context" key at all
		none bool
	}{
		{"nothing told", Context{}, "", true},
		{"zero percent told", Context{Source: ContextScreen, UsedPct: PercentOf(0)},
			`"context":{"source":"screen","used_pct":0}`, false},
		{"tokens, window unknown", Context{Source: ContextTranscript, Tokens: 1200, Model: "m"},
			`"context":{"source":"transcript","tokens":1200,"model":"m"}`, false},
		{"all", Context{Source: ContextSessionFile, UsedPct: PercentOf(58), Tokens: 150020, Window: 258400,
			Model: "gpt-5.5", TokensIn: 150100, TokensOut: 40},
			`"context":{"source":"session-file","used_pct":58,"tokens":150020,"window":258400,"model":"gpt-5.5","session_tokens_in":150100,"session_tokens_out":40}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(Pane{ID: "%1", Context: tc.ctx})
			if err != nil {
				t.Fatal(err)
			}
			if tc.none != !strings.Contains(string(b), `"context"`) || !strings.Contains(string(b), tc.want) {
				t.Fatalf("JSON %s, want it to hold %s", b, tc.want)
			}
			var back Pane
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Context != tc.ctx {
				t.Errorf("read back %+v, want %+v", back.Context, tc.ctx)
			}
		})
	}
	var p Percent
	if err := json.Unmarshal([]byte("null"), &p); err != nil || !p.IsZero() {
		t.Errorf("null read as %+v, %v; want unknown", p, err)
	}
}
