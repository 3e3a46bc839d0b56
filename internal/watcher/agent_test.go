package watcher

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
)

// A permission hook on a READY Claude pane is in the snapshot and the store as soon as
// Agent returns, with its witness; a look at the same READY screen after tracker.Fresh
// gives the state back to the screen.
func TestAgentHookPublishedAtOnceThenScreenWins(t *testing.T) {
	w := newWatcher(t)
	step := readyClaude(t, w)
	shows := func(st, witness string) {
		t.Helper()
		snap, err := wire.ReadSnapshot(w.Snapshot)
		if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != st || snap.Panes[0].Witness != witness {
			t.Fatalf("snapshot %+v (%v), want %s by %s", snap.Panes, err, st, witness)
		}
	}
	shows("READY", tracker.WitnessScreen)

	ev := hooks.AgentEvent{Agent: hooks.Claude, Event: "Notification", Pane: "%1", Kind: "permission_prompt", Summary: "Claude needs your permission"}
	at := t0.Add(3 * time.Second)
	if known, err := w.Agent(ev, at); !known || err != nil {
		t.Fatalf("Agent: known %v, %v", known, err)
	}
	shows("NEEDS_CONFIRMATION", tracker.WitnessHook)
	hist, err := db(w).Transitions("%1", 1)
	if err != nil || len(hist) != 1 || hist[0].To != "NEEDS_CONFIRMATION" || hist[0].Rule != "hook:claude:Notification" {
		t.Fatalf("history %+v, %v", hist, err)
	}
	if due := w.due()["%1"]; !due.Equal(at.Add(tracker.Fresh)) {
		t.Errorf("due %v, want the claim's end %v", due, at.Add(tracker.Fresh))
	}
	step(at.Add(time.Second))
	shows("NEEDS_CONFIRMATION", tracker.WitnessHook)
	step(at.Add(tracker.Fresh))
	shows("READY", tracker.WitnessScreen)
}

func TestAgentHookForUnknownPane(t *testing.T) {
	w := newWatcher(t)
	known, err := w.Agent(hooks.AgentEvent{Agent: hooks.Claude, Event: "Stop", Pane: "%9"}, time.Now())
	if known || err != nil {
		t.Fatalf("unknown pane: known %v, %v", known, err)
	}
}
