package tracker

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/packs"
)

// A pack's clock (a status line's time, in an ignored footer) that advances proves the CLI
// alive while the screen it reads holds still: never STALLED while it ticks, STALLED once
// it has stood still for the stall time, and back to BUSY when it moves again.
func TestClockKeepsAFrozenScreenFromStalling(t *testing.T) {
	const (
		B = state.Busy
		S = state.Stalled
	)
	type look struct {
		sec   int
		clock string
		want  state.State
	}
	tests := []struct {
		name  string
		looks []look
	}{
		{"frozen screen, advancing clock: never stalled", []look{
			{0, "10:00", B}, {30, "10:00", B}, {60, "10:01", B}, {120, "10:02", B},
			{180, "10:03", B}, {600, "10:10", B},
		}},
		{"the clock stops: stalled a stall time after its last tick", []look{
			{0, "10:00", B}, {60, "10:01", B}, {90, "10:01", B}, {119, "10:01", B}, {120, "10:01", S},
		}},
		{"a stalled pane whose clock moves is busy again", []look{
			{0, "10:00", B}, {60, "10:00", S}, {61, "10:01", B}, {100, "10:01", B}, {121, "10:01", S},
		}},
		{"no clock: the frozen screen stalls as before", []look{
			{0, "", B}, {59, "", B}, {60, "", S},
		}},
		{"a clock that vanishes is no sign of life", []look{
			{0, "10:00", B}, {30, "", B}, {60, "", S},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Unix(1_700_000_000, 0)
			tr := New("", time.Time{})
			for i, l := range tt.looks {
				tr.Observe(Observation{
					At:     start.Add(time.Duration(l.sec) * time.Second),
					Result: packs.Result{State: state.Busy, Rule: "spinner", Clock: l.clock},
					Hash:   1, // the screen the pack reads never moves
					Clock:  l.clock,
					Settle: time.Second,
					Stall:  time.Minute,
				})
				if tr.State != l.want {
					t.Fatalf("look %d (%ds, clock %q): %s, want %s", i, l.sec, l.clock, tr.State, l.want)
				}
			}
		})
	}
}

// The observer that looks only when panes print must look when a ticking clock's stall
// time runs out: Due counts from the clock's last tick.
func TestDueCountsFromTheClock(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	tr := New("", time.Time{})
	obs := func(sec int, clock string) {
		tr.Observe(Observation{At: start.Add(time.Duration(sec) * time.Second),
			Result: packs.Result{State: state.Busy}, Hash: 1, Clock: clock, Settle: time.Second, Stall: time.Minute})
	}
	obs(0, "10:00")
	obs(50, "10:01")
	if want := start.Add(110 * time.Second); !tr.Due().Equal(want) {
		t.Fatalf("due %v, want %v (a stall time after the clock's tick)", tr.Due(), want)
	}
}

// Output reported moved (an observer skipped frames that repeated earlier ones) is a sign
// of life though the screen's hash stands still: never STALLED while it comes, and
// output with no rule stays BUSY while it comes; both as before once it stops. It never
// holds back a READY screen's settling (it may be a footer the pack ignores).
func TestMovedOutputIsAlive(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	at := func(sec float64) time.Time { return start.Add(time.Duration(sec * float64(time.Second))) }
	look := func(tr *Tracker, sec float64, r packs.Result, moved bool) state.State {
		o := Observation{At: at(sec), Result: r, Hash: 1, Settle: time.Second, Stall: time.Minute}
		if moved {
			o.Moved = at(sec - 0.1)
		}
		tr.Observe(o)
		return tr.State
	}
	spinner := packs.Result{State: state.Busy, Rule: "spinner"}
	tr := New("", time.Time{})
	for _, sec := range []float64{0, 50, 100, 150} {
		if got := look(tr, sec, spinner, sec > 0); got != state.Busy {
			t.Fatalf("moving at %vs: %s", sec, got)
		}
	}
	if got := look(tr, 210, spinner, false); got != state.Stalled {
		t.Fatalf("still for a minute after it last moved: %s", got)
	}

	none := packs.Result{State: state.Unknown}
	tr = New("", time.Time{})
	look(tr, 0, none, false)
	for sec := 1; sec <= 5; sec++ {
		if got := look(tr, float64(sec), none, true); got != state.Busy {
			t.Fatalf("output moving at %ds: %s", sec, got)
		}
	}
	if got := look(tr, 7, none, false); got != state.Unknown {
		t.Fatalf("output that stopped: %s", got)
	}

	prompt := packs.Result{State: state.Ready, Rule: "prompt"}
	tr = New("", time.Time{})
	look(tr, 0, spinner, false)
	tr.Observe(Observation{At: at(1), Result: prompt, Hash: 2, Settle: time.Second})
	tr.Observe(Observation{At: at(2.1), Result: prompt, Hash: 2, Moved: at(2), Settle: time.Second})
	if got := tr.State; got != state.Ready {
		t.Fatalf("a prompt held for its settle time, a footer moving under it: %s", got)
	}
}
