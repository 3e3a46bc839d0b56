package main

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// at is the time of the n-th 100 ms sample.
func at(n int) time.Time { return t0.Add(time.Duration(n) * sampleEvery) }

// screens makes one sample per screen, the n-th at at(n), each shown the given state.
func screens(shownState string, ss ...string) []sample {
	out := make([]sample, len(ss))
	for i, s := range ss {
		out[i] = sample{At: at(i), Screen: strings.Split(s, "\n"), Shown: shownState}
	}
	return out
}

func TestLabel(t *testing.T) {
	dialog := []mark{{State: "NEEDS_CONFIRMATION", Pattern: `Allow\?`}}
	tests := []struct {
		name    string
		screens []string
		actions []action
		want    string // a letter per sample: R(EADY) B(USY) N(EEDS_CONFIRMATION) E(RROR), - none
	}{{
		name:    "busy until the final frame, then ready",
		screens: []string{"> hi", "> hi\n⠋", "> hi\n⠙", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer", "> hi\nanswer"},
		actions: []action{{At: at(1), Kind: "submit"}},
		want:    "-BBRRRRRRRRRRR",
	}, {
		name:    "a final frame shorter than a second is still busy",
		screens: []string{"a", "b", "c", "d", "d", "d"},
		actions: []action{{At: at(0), Kind: "submit"}, {At: at(6), Kind: "submit"}},
		want:    "BBBBBB",
	}, {
		name:    "an interval cut short has no final frame",
		screens: []string{"a", "b", "b", "b", "b", "b", "b", "b", "b", "b", "b", "b"},
		actions: []action{{At: at(0), Kind: "submit", Cut: true}},
		want:    "BBBBBBBBBBBB",
	}, {
		name:    "the screen the action was taken on, held still, is a CLI loading",
		screens: []string{"$ agent", "$ agent", "$ agent", "$ agent", "$ agent", "$ agent", "$ agent", "$ agent", "$ agent", "$ agent", "$ agent", "$ agent"},
		actions: []action{{At: at(1), Kind: "submit"}},
		want:    "-BBBBBBBBBBB",
	}, {
		name:    "a blank screen that holds still is a CLI loading, not its final frame",
		screens: []string{"$ agent", "", "", "", "", "", "", "", "", "", "", ""},
		actions: []action{{At: at(0), Kind: "submit"}},
		want:    "BBBBBBBBBBBB",
	}, {
		name:    "a dialog drawn after the action is its mark's state; one already there is not",
		screens: []string{"Allow?", "Allow?\nx", "Allow?\nx\nAllow?", "Allow?\nx\nAllow?", "Allow?\nx\nAllow?"},
		actions: []action{{At: at(1), Kind: "submit", Marks: dialog}},
		want:    "-BNNN",
	}, {
		name:    "typing goes on with the state before it",
		screens: []string{"a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a\nerr", "a\nerr", "a\nerr>x"},
		actions: []action{{At: at(0), Kind: "submit", Marks: []mark{{State: "ERROR", Pattern: `err`}}}, {At: at(13), Kind: "type"}},
		want:    "BBBBBBBBBBBEEE", // busy until the error shows: no final frame before it
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := recording{Samples: screens("", tc.screens...), Actions: tc.actions}
			got := ""
			for _, s := range label(rec) {
				got += map[string]string{"": "-", "READY": "R", "BUSY": "B", "NEEDS_CONFIRMATION": "N", "ERROR": "E"}[s]
			}
			if got != tc.want {
				t.Errorf("labels %s, want %s", got, tc.want)
			}
		})
	}
}

// A READY shown while busy counts as false READY, its run is timed, and a change is timed
// to the daemon's publication of it.
func TestMeasure(t *testing.T) {
	rec := recording{
		Samples: screens("READY", "a", "b", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c"),
		Actions: []action{{At: at(0).Add(-time.Millisecond), Kind: "submit"}},
		Shown:   []shown{{At: at(0).Add(-time.Second), State: "READY"}},
	}
	for i := 0; i < 3; i++ { // BUSY shown late, for the first three samples
		rec.Samples[i].Shown = "READY"
	}
	r := measure(rec, label(rec))
	if r.falseReady != 2 || r.longestFalseReady != 2*sampleEvery {
		t.Errorf("false READY %d samples, longest %s; want 2, 200ms", r.falseReady, r.longestFalseReady)
	}
	if got := r.latency["READY"]; len(got) != 1 || got[0] != 0 {
		t.Errorf("READY latency %v, want [0] (it was shown all along)", got)
	}
	if r.missed["BUSY"] != 1 {
		t.Errorf("missed BUSY %d, want 1 (never shown before the truth moved on)", r.missed["BUSY"])
	}
}

func TestShownWithin(t *testing.T) {
	shown := []shown{{At: at(0), State: "READY"}, {At: at(5), State: "BUSY"}, {At: at(12), State: "READY"}}
	if d, ok := shownWithin(shown, "BUSY", at(2), at(20)); !ok || d != 3*sampleEvery {
		t.Errorf("BUSY after %s, %v; want 300ms", d, ok)
	}
	if _, ok := shownWithin(shown, "BUSY", at(6), at(20)); !ok {
		t.Errorf("BUSY already shown at the change: want it counted")
	}
	if _, ok := shownWithin(shown, "ERROR", at(2), at(20)); ok {
		t.Errorf("ERROR never shown: want it missed")
	}
	if _, ok := shownWithin(shown, "READY", at(6), at(10)); ok {
		t.Errorf("READY shown only after the truth moved on: want it missed")
	}
}

// What animates while an agent is idle is cut out of its lines, not the lines dropped:
// opencode's error toast, over the right end of history lines, leaves the rest of them.
func TestNormalizeCutsWhatAnimates(t *testing.T) {
	a, _ := agentByName("opencode")
	idle := compileAll(a.idle)
	withToast := []string{
		"                          ┃                    ┃",
		"  ┃                       ┃  prompt too long   ┃",
		"  ┃  hangforever please   ┃                    ┃",
		"  ┃",
	}
	without := []string{"", "  ┃", "  ┃  hangforever please", "  ┃"}
	if got, want := normalize(withToast, idle), normalize(without, idle); got != want {
		t.Errorf("with the toast:\n%s\nwithout:\n%s", got, want)
	}
	if normalize([]string{"  ┃  hi"}, idle) == normalize([]string{"  ┃  ho"}, idle) {
		t.Error("a history line that changed reads as still")
	}
}

// A sample that still shows the state the truth just left counts as in time while the
// change is younger than its target latency (300 ms to BUSY), and not after.
func TestInTimeAllowsTheTargetLatency(t *testing.T) {
	ss := []string{"a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "b", "c", "d", "e", "f", "g"}
	for _, tc := range []struct {
		busyFrom int // the first sample shown BUSY
		want     int // samples in time
	}{{13, 18}, {15, 18}, {16, 17}} {
		rec := recording{
			Samples: screens("READY", ss...),
			Actions: []action{{At: at(0).Add(-time.Millisecond), Kind: "submit"}, {At: at(12).Add(-time.Millisecond), Kind: "submit", Cut: true}},
		}
		for i := tc.busyFrom; i < len(ss); i++ {
			rec.Samples[i].Shown = "BUSY"
		}
		if r := measure(rec, label(rec)); r.inTime != tc.want {
			t.Errorf("BUSY shown from sample %d: %d samples in time, want %d", tc.busyFrom, r.inTime, tc.want)
		}
	}
}
