package daemon

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/wire"
)

// paneContext is a pane's context as the snapshot shows it.
func (r *rig) paneContext(id string) wire.Context {
	snap, err := wire.ReadSnapshot(r.dir.Snapshot())
	if err != nil {
		return wire.Context{}
	}
	for _, p := range snap.Panes {
		if p.ID == id {
			return p.Context
		}
	}
	return wire.Context{}
}

// A Claude hook naming its transcript has the pane's context read from it: its SessionStart
// names the model with its 1M window, a later hook (Stop, no model) has what was appended
// meanwhile read, the model named before still counting.
func TestContextFromHookTranscript(t *testing.T) {
	r := newRig(t, "poll")
	id := r.tmux.NewSession("w", "")
	r.start()
	r.waitFor("the pane is watched", func() bool { return r.paneState(id) != "" })

	recorded, err := os.ReadFile(filepath.Join("..", "contextuse", "testdata", "claude-2.1.197.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(recorded, []byte("\n"))
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(transcript, bytes.Join(lines[:12], nil), 0o600); err != nil { // to the 150000-token answer
		t.Fatal(err)
	}
	conn, err := net.Dial("unixgram", r.dir.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	send := func(a hooks.AgentEvent) {
		if file, ok := a.FileDatagram(); ok {
			if _, err := conn.Write(datagram(file)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := conn.Write(datagram(a.Datagram())); err != nil {
			t.Fatal(err)
		}
	}
	send(hooks.AgentEvent{Agent: hooks.Claude, Event: "SessionStart", Pane: id, Transcript: transcript, Model: "claude-opus-4-8[1m]"})
	r.waitFor("the transcript's context", func() bool {
		c := r.paneContext(id)
		pct, _ := c.UsedPct.Get()
		return c.Source == wire.ContextTranscript && c.Tokens == 150000 && c.Window == 1_000_000 && pct == 15
	})

	f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Join(lines[12:22], nil)) // to the 950000-token answer
	f.Close()
	start := time.Now()
	send(hooks.AgentEvent{Agent: hooks.Claude, Event: "Stop", Pane: id, Transcript: transcript})
	r.waitFor("the answer appended", func() bool {
		c := r.paneContext(id)
		pct, _ := c.UsedPct.Get()
		return c.Tokens == 950000 && pct == 95 && c.Model == "claude-opus-4-8[1m]"
	})
	t.Logf("hook -> context in the snapshot: %v", time.Since(start))
}

// A restarted daemon takes a pane's stored model as named only when its file gave a
// window: a transcript's tokens shown with the screen's percent named none.
func TestNamedModel(t *testing.T) {
	for _, tc := range []struct {
		c    wire.Context
		want string
	}{
		{wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(30), Tokens: 300000, Window: 1_000_000, Model: "claude-opus-4-8[1m]"}, "claude-opus-4-8[1m]"},
		{wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(97), Tokens: 190000, Model: "claude-opus-4-8"}, ""},
		{wire.Context{Source: wire.ContextScreen, UsedPct: wire.PercentOf(97)}, ""},
		{wire.Context{}, ""},
	} {
		if got := namedModel(tc.c); got != tc.want {
			t.Errorf("namedModel(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}
