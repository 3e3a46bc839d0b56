package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
)

// TestTargetNamesOfferTheFleetsPanes: completion offers a remote pane as HOST:NAME, which
// every command taking a TARGET reads as that host's pane.
func TestTargetNamesOfferTheFleetsPanes(t *testing.T) {
	snap := wire.Snapshot{
		Panes:  []wire.Pane{{ID: "%1", Name: "api", Session: "a"}},
		Remote: []wire.Pane{{ID: "%1", Host: "devbox", Name: "api", Session: "a"}, {ID: "%2", Host: "gpu1", Name: "train\x1b[2J", Session: "a"}},
	}
	got := targetNames(snap)
	if want := []string{"api", "devbox:api", "gpu1:train?[2J"}; !slices.Equal(got, want) {
		t.Errorf("targetNames = %q, want %q", got, want)
	}
}

// The status table's CONTEXT column and status --json's context: a percent when the
// window is known, tokens when not, nothing when the agent told nothing.
func TestStatusShowsContext(t *testing.T) {
	panes := []wire.Pane{
		{ID: "%1", Name: "api", State: "READY", Session: "a", Context: wire.Context{Source: wire.ContextTranscript,
			UsedPct: wire.PercentOf(72), Tokens: 144000, Window: 200_000, Model: "claude-opus-4-8", TokensIn: 900000, TokensOut: 4000}},
		{ID: "%2", Name: "web", State: "BUSY", Session: "a", WindowIndex: 1, Context: wire.Context{Source: wire.ContextTranscript, Tokens: 150000}},
		{ID: "%3", Name: "sh", State: "READY", Session: "a", WindowIndex: 2},
	}
	var table strings.Builder
	if err := writeStatusTable(&table, panes); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(table.String(), "\n")
	col := strings.Index(lines[0], "CONTEXT")
	for i, want := range []string{"CONTEXT", "72%", "150k tok", "-"} {
		if col < 0 || !strings.HasPrefix(lines[i][col:], want+" ") {
			t.Errorf("table line %d %q: want %q in the CONTEXT column", i, lines[i], want)
		}
	}
	var js bytes.Buffer
	if err := writeStatusJSON(&js, wire.Snapshot{Panes: panes}, nil); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Panes []map[string]json.RawMessage `json:"panes"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"source":"transcript","used_pct":72,"tokens":144000,"window":200000,"model":"claude-opus-4-8","session_tokens_in":900000,"session_tokens_out":4000}`,
		`{"source":"transcript","tokens":150000}`,
		"",
	}
	for i, p := range out.Panes {
		var compact bytes.Buffer
		if raw := p["context"]; raw != nil {
			json.Compact(&compact, raw)
		}
		if compact.String() != want[i] {
			t.Errorf("pane %d: context %s, want %s", i, compact.String(), want[i])
		}
	}
}
