package tracker

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/packs"
)

// step is one observation: after ms milliseconds, the screen hash and what the pack said.
type step struct {
	ms   int
	hash uint64
	says state.State
	want state.State
}

func TestTracker(t *testing.T) {
	const (
		R = state.Ready
		B = state.Busy
		N = state.NeedsConfirmation
		E = state.Error
		U = state.Unknown
		S = state.Stalled
	)
	tests := []struct {
		name  string
		steps []step
	}{
		{"ready waits for the settle time", []step{
			{0, 1, R, U}, {500, 1, R, U}, {1000, 1, R, R},
		}},
		{"busy enters at once", []step{
			{0, 1, R, U}, {1000, 1, R, R}, {1100, 2, B, B},
		}},
		{"busy to ready only after settle", []step{
			{0, 1, B, B}, {500, 2, R, B}, {1000, 2, R, B}, {1500, 2, R, R},
		}},
		{"confirmation beats settle", []step{
			{0, 1, R, U}, {200, 2, N, N},
		}},
		{"error enters at once", []step{
			{0, 1, B, B}, {300, 2, E, E},
		}},
		{"changing screen without rule is busy", []step{
			{0, 1, U, U}, {500, 2, U, B}, {1000, 3, U, B}, {2000, 3, U, U},
		}},
		{"first look at an unmatched screen is unknown, not busy", []step{
			{0, 1, U, U}, {500, 1, U, U},
		}},
		{"typing into a ready box stays ready", []step{
			{0, 1, R, U}, {1000, 1, R, R}, {1200, 2, R, R}, {1400, 3, R, R},
		}},
		{"frozen busy screen stalls", []step{
			{0, 1, B, B}, {59_000, 1, B, B}, {60_000, 1, B, S}, {60_500, 2, B, B},
		}},
		{"answered dialog goes ready after settle", []step{
			{0, 1, N, N}, {500, 2, R, N}, {1500, 2, R, R},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Unix(1_700_000_000, 0)
			tr := New("", time.Time{})
			for i, s := range tt.steps {
				tr.Observe(Observation{
					At:     start.Add(time.Duration(s.ms) * time.Millisecond),
					Result: packs.Result{State: s.says, Rule: "r"},
					Hash:   s.hash,
					Settle: time.Second,
					Stall:  time.Minute,
				})
				if tr.State != s.want {
					t.Fatalf("step %d (%dms, pack says %s): state %s, want %s", i, s.ms, s.says, tr.State, s.want)
				}
			}
		})
	}
}

func TestTransitionsRecorded(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	tr := New("", time.Time{})
	obs := func(ms int, says state.State, hash uint64) (Transition, bool) {
		return tr.Observe(Observation{At: start.Add(time.Duration(ms) * time.Millisecond),
			Result: packs.Result{State: says, Rule: "spinner", Summary: "working"}, Hash: hash, Settle: time.Second})
	}
	if _, moved := obs(0, state.Busy, 1); !moved {
		t.Fatal("UNKNOWN -> BUSY not reported")
	}
	if _, moved := obs(100, state.Busy, 2); moved {
		t.Fatal("BUSY -> BUSY reported as a transition")
	}
	got, moved := tr.Dead(start.Add(time.Second), RuleDead, "exit 1")
	if !moved || got.From != state.Busy || got.To != state.Offline || got.Rule != RuleDead {
		t.Fatalf("Dead: %+v %v", got, moved)
	}
}

func TestDueWhileReadySettles(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	tr := New("", time.Time{})
	obs := func(ms int, says state.State, hash uint64) {
		tr.Observe(Observation{At: start.Add(time.Duration(ms) * time.Millisecond),
			Result: packs.Result{State: says}, Hash: hash, Settle: time.Second})
	}
	obs(0, state.Busy, 1)
	if !tr.Due().IsZero() {
		t.Fatalf("a BUSY pane is due at %v", tr.Due())
	}
	obs(300, state.Ready, 2)
	if want := start.Add(1300 * time.Millisecond); !tr.Due().Equal(want) {
		t.Fatalf("due %v, want %v (settle after the last change)", tr.Due(), want)
	}
	obs(1300, state.Ready, 2)
	if tr.State != state.Ready || !tr.Due().IsZero() {
		t.Fatalf("at the due time: %s, due %v", tr.State, tr.Due())
	}
}

// A state that changes with time alone asks to be looked at then: output that stopped
// moving is no longer BUSY after the settle time, a frozen BUSY screen is STALLED after
// the stall time.
func TestDueWhenStillnessChangesTheState(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name   string
		says   state.State
		stall  time.Duration
		dueMs  int
		thenIs state.State
	}{
		{"output stopped moving", state.Unknown, 0, 1000, state.Unknown},
		{"busy screen froze", state.Busy, 3 * time.Second, 3000, state.Stalled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New("", time.Time{})
			obs := func(ms int, hash uint64) {
				tr.Observe(Observation{At: start.Add(time.Duration(ms) * time.Millisecond),
					Result: packs.Result{State: tc.says}, Hash: hash, Settle: time.Second, Stall: tc.stall})
			}
			obs(0, 1)
			obs(100, 2)
			if tr.State != state.Busy {
				t.Fatalf("moving screen: %s", tr.State)
			}
			want := start.Add(time.Duration(100+tc.dueMs) * time.Millisecond)
			if !tr.Due().Equal(want) {
				t.Fatalf("due %v, want %v", tr.Due(), want)
			}
			obs(100+tc.dueMs, 2)
			if tr.State != tc.thenIs {
				t.Errorf("at the due time: %s, want %s", tr.State, tc.thenIs)
			}
		})
	}
}

func TestRestoredStateCarriesOn(t *testing.T) {
	since := time.Unix(1_600_000_000, 0)
	tr := New(state.NeedsConfirmation, since)
	now := time.Unix(1_700_000_000, 0)
	if _, moved := tr.Observe(Observation{At: now, Result: packs.Result{State: state.NeedsConfirmation}, Hash: 1, Settle: time.Second}); moved {
		t.Fatal("a restored state seen again was reported as a transition")
	}
	if !tr.Since.Equal(since) {
		t.Errorf("Since = %v, want the restored %v", tr.Since, since)
	}
	// A restored READY pane whose screen now says READY stays READY without a settle wait.
	tr = New(state.Ready, since)
	tr.Observe(Observation{At: now, Result: packs.Result{State: state.Ready}, Hash: 1, Settle: time.Second})
	if tr.State != state.Ready {
		t.Errorf("restored READY became %s", tr.State)
	}
}

// An idle prompt that replaced work the screen showed (a busy sign a rule read, a dialog)
// waits only the pack's SettleAfterWork; one that replaced an idle prompt (the prompt an
// agent clears as it takes it, even before the first settled), an unread screen, an
// agent starting or a model's reading waits the whole Settle, and so does every idle
// prompt when the pack sets no SettleAfterWork.
func TestIdlePromptAfterWorkSettlesSooner(t *testing.T) {
	const (
		R = state.Ready
		B = state.Busy
		N = state.NeedsConfirmation
		U = state.Unknown
	)
	type look struct {
		ms   int
		hash uint64
		says state.State
		rule string
		want state.State
	}
	tests := []struct {
		name      string
		afterWork time.Duration
		looks     []look
	}{
		{"after a busy sign", 300 * time.Millisecond, []look{
			{0, 1, B, "spinner", B}, {100, 2, R, "box", B}, {399, 2, R, "box", B}, {400, 2, R, "box", R},
		}},
		{"after a dialog", 300 * time.Millisecond, []look{
			{0, 1, N, "dialog", N}, {100, 2, R, "box", N}, {400, 2, R, "box", R},
		}},
		{"an idle prompt that replaced an unsettled one waits the whole settle", 300 * time.Millisecond, []look{
			{0, 1, B, "spinner", B}, {100, 2, R, "box", B}, {300, 3, R, "box", B}, {600, 3, R, "box", B}, {1299, 3, R, "box", B}, {1300, 3, R, "box", R},
		}},
		{"a dialog drawn over a prompt not settled yet, then answered", 300 * time.Millisecond, []look{
			{0, 1, B, "spinner", B}, {100, 2, R, "box", B}, {150, 3, N, "dialog", N}, {200, 4, R, "box", N}, {500, 4, R, "box", R},
		}},
		{"a model's BUSY is no work a rule saw", 300 * time.Millisecond, []look{
			{0, 1, B, RuleModel, B}, {100, 2, R, "box", B}, {400, 2, R, "box", B}, {1100, 2, R, "box", R},
		}},
		{"a prompt taken from an idle box is no work ended", 300 * time.Millisecond, []look{
			{0, 1, R, "box", U}, {1000, 1, R, "box", R}, {1100, 2, state.Error, "err", state.Error},
			{1200, 3, R, "box", state.Error}, {1500, 3, R, "box", state.Error}, {2200, 3, R, "box", R},
		}},
		{"moving output no rule reads is no work a rule saw", 300 * time.Millisecond, []look{
			{0, 1, U, "", U}, {100, 2, U, "", B}, {200, 3, R, "box", B}, {500, 3, R, "box", B}, {1200, 3, R, "box", R},
		}},
		{"an agent starting waits the whole settle", 300 * time.Millisecond, []look{
			{0, 1, B, RuleStarting, B}, {100, 2, R, "box", B}, {400, 2, R, "box", B}, {1100, 2, R, "box", R},
		}},
		{"no SettleAfterWork: the whole settle", 0, []look{
			{0, 1, B, "spinner", B}, {100, 2, R, "box", B}, {400, 2, R, "box", B}, {1100, 2, R, "box", R},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Unix(1_700_000_000, 0)
			tr := New("", time.Time{})
			for i, l := range tt.looks {
				tr.Observe(Observation{
					At:              start.Add(time.Duration(l.ms) * time.Millisecond),
					Result:          packs.Result{State: l.says, Rule: l.rule},
					Hash:            l.hash,
					Settle:          time.Second,
					SettleAfterWork: tt.afterWork,
				})
				if tr.State != l.want {
					t.Fatalf("look %d (%dms, pack says %s): %s, want %s", i, l.ms, l.says, tr.State, l.want)
				}
			}
		})
	}
}

// A READY screen's stillness counts from when it changed, where the observer knows that
// came before its capture (Observation.Changed); a time after the capture is no such thing.
func TestStillnessCountsFromTheChange(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return start.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name    string
		changed time.Time
		due     time.Time
	}{
		{"the change before the capture", ms(1000), ms(2000)},
		{"no time: the capture's", time.Time{}, ms(2100)},
		{"a time after the capture is ignored", ms(1200), ms(2100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New("", time.Time{})
			tr.Observe(Observation{At: ms(0), Result: packs.Result{State: state.Busy, Rule: "spinner"}, Hash: 1, Settle: time.Second})
			tr.Observe(Observation{At: ms(1100), Changed: tc.changed, Result: packs.Result{State: state.Ready, Rule: "box"}, Hash: 2, Settle: time.Second})
			if !tr.Due().Equal(tc.due) {
				t.Fatalf("due %v after the start, want %v", tr.Due().Sub(start), tc.due.Sub(start))
			}
			tr.Observe(Observation{At: tc.due, Result: packs.Result{State: state.Ready, Rule: "box"}, Hash: 2, Settle: time.Second})
			if tr.State != state.Ready {
				t.Fatalf("at the due time: %s", tr.State)
			}
		})
	}
}
