package tracker

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/packs"
)

// event is one moment of a fusion scenario: at ms, either a look at the screen (hash,
// what the pack says) or a hook (hook set: its claim; a READY claim is a turn's end).
// want and witness are what is shown after it.
type event struct {
	ms      int
	hook    bool
	claims  state.State
	hash    uint64
	says    state.State
	want    state.State
	witness string
}

func look(ms int, hash uint64, says, want state.State, witness string) event {
	return event{ms: ms, hash: hash, says: says, want: want, witness: witness}
}

func hook(ms int, claims state.State, want state.State, witness string) event {
	return event{ms: ms, hook: true, claims: claims, want: want, witness: witness}
}

func TestHookFusion(t *testing.T) {
	const (
		R = state.Ready
		B = state.Busy
		N = state.NeedsConfirmation
		E = state.Error
		U = state.Unknown
		X = state.Exited
		S = WitnessScreen
		H = WitnessHook
	)
	fresh := int(Fresh / time.Millisecond)
	grace := int(TurnEndGrace / time.Millisecond)
	tests := []struct {
		name   string
		events []event
		// disputes: how many times a claim ran out against a screen that said
		// otherwise (TakeDispute), over the whole scenario.
		disputes int
	}{
		{"permission hook moves at once, screen confirms", []event{
			look(0, 1, R, U, S), look(1000, 1, R, R, S),
			hook(1100, N, N, H),
			look(1200, 2, N, N, S),
		}, 0},
		{"screen wins after the window when it never confirms", []event{
			look(0, 1, R, U, S), look(1000, 1, R, R, S),
			hook(1100, N, N, H),
			look(1200, 1, R, N, H),
			look(1100+fresh-1, 1, R, N, H),
			look(1100+fresh, 1, R, R, S),
		}, 1},
		{"prompt submitted: busy before the spinner shows", []event{
			look(0, 1, R, U, S), look(1000, 1, R, R, S),
			hook(2000, B, B, H),
			look(2050, 2, R, B, H), // the prompt still drawn, spinner not yet
			look(2300, 3, B, B, S),
		}, 0},
		{"turn ended over an idle prompt not settled yet: READY at once", []event{
			look(0, 1, B, B, S),
			look(4000, 2, R, B, S), // the prompt drawn, not settled yet
			hook(4100, R, R, H),
			look(5000, 2, R, R, S), // settled: the screen confirms it
		}, 0},
		{"turn ended before the last frames: READY at the first idle frame", []event{
			look(0, 1, B, B, S),
			hook(5000, R, B, S),
			look(5200, 2, B, B, S), // the spinner still drawn
			look(5300, 3, R, R, H),
			look(6300, 3, R, R, S),
		}, 0},
		{"a turn's end while the agent stays at work (a headless run in the pane): never READY", []event{
			look(0, 1, B, B, S),
			hook(5000, R, B, S),
			look(5500, 2, B, B, S),
			look(5000+grace+1, 3, B, B, S),   // still at work after the grace: the claim is dropped
			look(5000+grace+100, 4, R, B, S), // an idle prompt for a moment between tool calls
		}, 0},
		{"a turn's end lapses: an idle prompt long after it waits to settle", []event{
			look(0, 1, B, B, S),
			hook(5000, R, B, S),
			look(5000+1000+fresh, 2, R, B, S), // the first frame since the claim ran out (settle and Fresh after it)
		}, 0},
		{"turn ended where no rule reads busy: ready after settle", []event{
			look(0, 1, U, U, S),
			look(100, 2, U, B, S), // moving, no rule: screen-changing
			hook(5000, R, B, S),
			look(6000, 3, U, R, H),
			look(6200, 4, R, R, H), // the prompt drawn, not settled yet: the claim holds
			look(7200, 4, R, R, S),
		}, 0},
		{"a frame captured before the hook, applied after it, does not undo it", []event{
			look(0, 1, R, U, S), look(1000, 1, R, R, S),
			hook(2000, N, N, H),
			look(1990, 1, R, N, H),
		}, 0},
		{"a late permission hook yields to a screen read at work after it", []event{
			look(0, 1, B, B, S),
			hook(1000, N, N, H),
			look(1100, 2, B, B, S),
		}, 0},
		{"a dialog the screen shows after a busy hook wins at once", []event{
			look(0, 1, R, U, S), look(1000, 1, R, R, S),
			hook(1500, B, B, H),
			look(1600, 2, N, N, S),
		}, 0},
		{"a ready hook never hides a dialog on screen", []event{
			look(0, 1, N, N, S),
			hook(500, R, N, S),
		}, 0},
		{"a dialog answered, its turn over: READY at the first idle frame", []event{
			look(0, 1, N, N, S),
			hook(1000, R, N, S),
			look(1100, 2, R, R, H), // the idle prompt, not settled yet
		}, 0},
		{"an agent that exits on a denied dialog shows EXITED, never READY", []event{
			look(0, 1, N, N, S),
			hook(1000, R, N, S),
			look(1100, 2, X, X, S),
			look(2500, 2, X, X, S),
		}, 0},
		{"a dialog still read after a turn's end drops the claim", []event{
			look(0, 1, N, N, S),
			hook(1000, R, N, S),
			look(1100, 1, N, N, S),
			look(1200, 2, R, N, S), // the idle prompt waits to settle, as without the claim
		}, 0},
		{"an error on screen that predates a busy hook holds it for the window only", []event{
			look(0, 1, E, E, S),
			hook(500, B, B, H),
			look(600, 1, E, B, H),
			look(500+fresh, 1, E, E, S), // an error on screen is never disputed
		}, 0},
		{"session end withdraws the claim", []event{
			look(0, 1, R, U, S), look(1000, 1, R, R, S),
			hook(1100, N, N, H),
			hook(1200, "", R, S),
		}, 0},
		{"a later hook replaces the claim", []event{
			look(0, 1, R, U, S), look(1000, 1, R, R, S),
			hook(1100, N, N, H),
			hook(1500, B, B, H), // approved: the tool runs
			look(1600, 1, R, B, H),
			look(1500+fresh, 1, R, R, S), // a BUSY claim the screen denied: the screen settles it
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Unix(1_700_000_000, 0)
			tr := New("", time.Time{})
			disputes := 0
			for i, e := range tt.events {
				at := start.Add(time.Duration(e.ms) * time.Millisecond)
				if e.hook {
					tr.Hook(Edge{At: at, State: e.claims, Rule: "hook:test", TurnEnded: e.claims == state.Ready, Settle: time.Second})
				} else {
					tr.Observe(Observation{At: at, Result: packs.Result{State: e.says, Rule: "r"}, Hash: e.hash, Settle: time.Second})
				}
				if tr.State != e.want || tr.Witness != e.witness {
					t.Fatalf("event %d (%dms): %s by %s, want %s by %s", i, e.ms, tr.State, tr.Witness, e.want, e.witness)
				}
				if tr.TakeDispute() != "" {
					disputes++
				}
			}
			if disputes != tt.disputes {
				t.Errorf("%d disputes, want %d", disputes, tt.disputes)
			}
		})
	}
}

// A claim asks to be looked at when it takes effect and when it lapses, so a pane is
// never left showing a claim its screen denies because nothing printed. A turn's end
// over a screen at work waits for the next frame: nothing to look at before.
func TestHookDue(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return start.Add(time.Duration(n) * time.Millisecond) }
	tr := New("", time.Time{})
	tr.Observe(Observation{At: ms(0), Result: packs.Result{State: state.Unknown}, Hash: 1, Settle: time.Second})
	tr.Hook(Edge{At: ms(100), State: state.Ready, TurnEnded: true, Settle: time.Second})
	if !tr.Due().Equal(ms(1100)) {
		t.Fatalf("pending READY: due %v, want %v", tr.Due(), ms(1100))
	}
	tr.Observe(Observation{At: ms(1100), Result: packs.Result{State: state.Unknown}, Hash: 1, Settle: time.Second})
	if tr.State != state.Ready || !tr.Due().Equal(ms(1100).Add(Fresh)) {
		t.Fatalf("claim in effect: %s, due %v, want READY due %v", tr.State, tr.Due(), ms(1100).Add(Fresh))
	}
	busy := New("", time.Time{})
	busy.Observe(Observation{At: ms(0), Result: packs.Result{State: state.Busy, Rule: "spinner"}, Hash: 1, Settle: time.Second})
	busy.Hook(Edge{At: ms(100), State: state.Ready, TurnEnded: true, Settle: time.Second})
	if busy.State != state.Busy || !busy.Due().IsZero() {
		t.Fatalf("turn's end over a screen at work: %s, due %v; want BUSY, nothing due", busy.State, busy.Due())
	}
}

func TestHookTransitionRecorded(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	tr := New(state.Ready, start)
	got, moved := tr.Hook(Edge{At: start.Add(time.Second), State: state.NeedsConfirmation, Rule: "hook:claude:Notification", Summary: "Claude needs your permission"})
	if !moved || got.From != state.Ready || got.To != state.NeedsConfirmation || got.Rule != "hook:claude:Notification" {
		t.Fatalf("transition %+v %v", got, moved)
	}
	if tr.Summary != "Claude needs your permission" || !tr.Since.Equal(start.Add(time.Second)) {
		t.Errorf("summary %q since %v", tr.Summary, tr.Since)
	}
}

func TestHookOnDeadPaneIgnored(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	tr := New(state.Ready, start)
	tr.Dead(start, RuleDead, "exited")
	if _, moved := tr.Hook(Edge{At: start.Add(time.Second), State: state.Busy}); moved || tr.State != state.Offline {
		t.Fatalf("a hook moved a dead pane to %s", tr.State)
	}
}
