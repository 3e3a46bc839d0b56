package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/termrec"
	"github.com/paneherd/paneherd/packs"
)

// stateOf is the state each recorded situation must read as: what a player's log says
// while it plays it.
var stateOf = map[string]state.State{
	"idle": state.Ready, "thinking": state.Busy, "streaming": state.Busy, "tool": state.Busy,
	"dialog": state.NeedsConfirmation, "error": state.Error,
}

// Every situation a schedule's state plays has a recording of every agent, and its first
// screen and its last read, by the agent's builtin pack, as the state the player logs:
// the bench's truth is what paneherd should show.
func TestRecordingsReadAsTheirState(t *testing.T) {
	set := packs.Load("")
	for _, agent := range recordedAgents {
		pack, err := set.Get(agent)
		if err != nil {
			t.Fatal(err)
		}
		for st, situations := range situationsOf {
			for _, sit := range situations {
				rec, err := recordingOf(agent, sit)
				if err != nil {
					t.Errorf("%v", err)
					continue
				}
				if want := state.State(strings.ToUpper(st)); stateOf[sit] != want {
					t.Fatalf("%s is played for %s, but stateOf says %s", sit, want, stateOf[sit])
				}
				for name, s := range map[string]termrec.Screen{"first": rec.Start, "last": rec.End} {
					if got := pack.Classify(asCaptured(s)); got.State != stateOf[sit] {
						t.Errorf("%s %s %s, %s screen: %s (rule %q, %q), want %s\n%s", agent, rec.Version, sit, name,
							got.State, got.Rule, got.Summary, stateOf[sit], asCaptured(s).Text())
					}
				}
			}
		}
	}
}

// asCaptured is the screen as the daemon reads it: `capture-pane -p`, no escapes, the
// cursor's row when it shows.
func asCaptured(s termrec.Screen) screen.Screen {
	sc := screen.Parse(screen.Join(screen.Parse(s.Text).Lines))
	if !s.CursorHidden {
		sc.CursorY = s.CursorY
	}
	return sc
}

// A replay writes the first screen, then exactly the recorded bytes, each write at its
// time after the screen and again each Duration, and stops before the first write due
// at or after the end.
func TestReplayWritesTheRecordedBytes(t *testing.T) {
	rec := termrec.Recording{Cols: 20, Rows: 3, Duration: time.Second,
		Start: termrec.Screen{Text: "one\ntwo\nthree\n", ScrollBottom: 2},
		Writes: []termrec.Write{
			{At: 100 * time.Millisecond, Data: []byte("\x1b[2A\x1b[38;5;174m✶\x1b[39m\r\n")},
			{At: 350 * time.Millisecond, Data: []byte("abc")},
			{At: 900 * time.Millisecond, Data: []byte("\xe2\x9c")}, // half a character: bytes, not text
		}}
	t0 := time.Unix(1000, 0)
	now := t0
	c := clock{now: func() time.Time { return now }, sleep: func(d time.Duration) { now = now.Add(max(d, 0)) }}
	var out bytes.Buffer
	var writtenAt []time.Duration
	w := writerFunc(func(p []byte) {
		writtenAt = append(writtenAt, now.Sub(t0))
		out.Write(p)
	})
	drawnAt := -1
	replay(w, rec, t0.Add(2350*time.Millisecond), c, func() { drawnAt = out.Len() })

	draw := rec.Start.Draw()
	want := slices.Concat(draw, rec.Bytes(), draw, rec.Bytes(), draw, rec.Writes[0].Data)
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("replayed %q\nwant     %q", out.Bytes(), want)
	}
	if drawnAt != len(rec.Start.Draw()) {
		t.Errorf("drawn called after %d bytes, want right after the first screen (%d)", drawnAt, len(rec.Start.Draw()))
	}
	ms := time.Millisecond
	wantAt := []time.Duration{0, 100 * ms, 350 * ms, 900 * ms, 1000 * ms, 1100 * ms, 1350 * ms, 1900 * ms, 2000 * ms, 2100 * ms}
	if fmt.Sprint(writtenAt) != fmt.Sprint(wantAt) {
		t.Errorf("written at %v, want %v", writtenAt, wantAt)
	}
	if now != t0.Add(2350*time.Millisecond) {
		t.Errorf("returned at %v, want at the end (2.35s)", now.Sub(t0))
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) {
	f(p)
	return len(p), nil
}

// A player's BUSY steps take turns at thinking, streaming and running a tool; each
// player starts at another of them.
func TestAgentPlayerTakesTurnsAtBusySituations(t *testing.T) {
	var got []string
	for turn := range 2 {
		p := newAgentPlayer("claude", turn)
		var seq []string
		for range 4 {
			seq = append(seq, p.next("busy"))
		}
		got = append(got, strings.Join(seq, " "))
	}
	want := []string{"thinking streaming tool thinking", "streaming tool thinking streaming"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("busy situations %q, want %q", got, want)
	}
}
