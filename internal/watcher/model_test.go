package watcher

import (
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
)

// A screen no rule fits is handed to Unsure once; a model's reading of it then holds the
// state, marked as the model's, until the screen changes; a reading of a screen the pane
// no longer shows is dropped.
func TestModelReadsWhatNoPackRuleFits(t *testing.T) {
	w := newWatcher(t)
	type asked struct {
		pane string
		hash uint64
	}
	var asks []asked
	w.Unsure = func(paneID string, _ screen.Screen, hash uint64, shown time.Time) {
		if !shown.IsZero() {
			t.Errorf("a screen read now was said shown since %v", shown)
		}
		asks = append(asks, asked{paneID, hash})
	}
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "odd", WindowPanes: 1, PID: 7, Command: "claude"}
	step := stepper(t, w, pane)
	shows := func(st, witness, summary string) {
		t.Helper()
		snap, err := wire.ReadSnapshot(w.Snapshot)
		if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != st || snap.Panes[0].Witness != witness || snap.Panes[0].Summary != summary {
			t.Fatalf("snapshot %+v (%v), want %s by %s: %q", snap.Panes, err, st, witness, summary)
		}
	}
	odd := "Reticulating splines\nplease hold the line\n"
	step(t0, odd)
	step(t0.Add(2*time.Second), odd)
	shows("UNKNOWN", "screen", "")
	if len(asks) != 1 || asks[0].pane != "%1" {
		t.Fatalf("Unsure calls %v; want one for the odd screen", asks)
	}
	if taken, err := w.Model("%1", asks[0].hash+1, state.Ready, "stale", t0.Add(3*time.Second)); taken || err != nil {
		t.Fatalf("a reading of another screen was taken (%v)", err)
	}
	if taken, err := w.Model("%1", asks[0].hash, state.Ready, "waits at its prompt", t0.Add(3*time.Second)); !taken || err != nil {
		t.Fatalf("the reading was not taken (%v)", err)
	}
	shows("READY", WitnessModel, "waits at its prompt")
	step(t0.Add(4*time.Second), odd) // the same screen: the reading holds
	shows("READY", WitnessModel, "waits at its prompt")
	hist, err := db(w).Transitions("%1", 0)
	if err != nil || len(hist) == 0 || hist[len(hist)-1].Rule != RuleModel || hist[len(hist)-1].Summary != "waits at its prompt" {
		t.Fatalf("history %+v (%v); want the model's transition with its summary", hist, err)
	}
	step(t0.Add(5*time.Second), readFixture(t, "claude/16-BUSY-thinking-before-first-token.txt"))
	if snap, _ := wire.ReadSnapshot(w.Snapshot); snap.Panes[0].State != "BUSY" || snap.Panes[0].Witness != "screen" {
		t.Errorf("a new screen the pack reads: %+v; want BUSY by the screen", snap.Panes[0])
	}
}

// A hook's claim that runs out against the screen (a permission hook on a screen its pack
// reads READY) hands that screen to Unsure, once, as shown since it last changed; a
// model's reading that sides with the hook then holds, marked as the model's, and one
// that agrees with the pack changes nothing. No dispute, no question: the screen alone
// is never sent.
func TestModelSettlesAHookDispute(t *testing.T) {
	w := newWatcher(t)
	type asked struct {
		hash  uint64
		shown time.Time
		text  string
	}
	var asks []asked
	w.Unsure = func(_ string, sc screen.Screen, hash uint64, shown time.Time) {
		asks = append(asks, asked{hash, shown, sc.Text()})
	}
	step := readyClaude(t, w)
	if len(asks) != 0 {
		t.Fatalf("a screen its pack reads was offered: %v", asks)
	}
	ev := hooks.AgentEvent{Agent: hooks.Claude, Event: "Notification", Pane: "%1", Kind: "permission_prompt", Summary: "Claude needs your permission"}
	at := t0.Add(3 * time.Second)
	if _, err := w.Agent(ev, at); err != nil {
		t.Fatal(err)
	}
	step(at.Add(time.Second)) // the claim stands: no dispute yet
	if len(asks) != 0 {
		t.Fatalf("offered while the claim stood: %v", asks)
	}
	step(at.Add(tracker.Fresh))
	step(at.Add(tracker.Fresh + time.Second))
	if len(asks) != 1 || !asks[0].shown.Equal(t0) || !strings.Contains(asks[0].text, "?") {
		t.Fatalf("Unsure calls %+v; want one, for the screen shown since %v", asks, t0)
	}
	if snap, _ := wire.ReadSnapshot(w.Snapshot); snap.Panes[0].State != "READY" || snap.Panes[0].Witness != "screen" {
		t.Fatalf("after the claim ran out: %+v; want READY by the screen", snap.Panes[0])
	}
	if taken, _ := w.Model("%1", asks[0].hash, state.Ready, "idle", at.Add(5*time.Second)); taken {
		t.Errorf("a reading that agrees with the pack was taken")
	}
	if taken, _ := w.Model("%1", asks[0].hash, state.Error, "a guess", at.Add(5*time.Second)); taken {
		t.Errorf("a reading that sides with neither witness was taken")
	}
	if taken, err := w.Model("%1", asks[0].hash, state.NeedsConfirmation, "asks to run make", at.Add(5*time.Second)); !taken || err != nil {
		t.Fatalf("the model's reading of the disputed screen was not taken (%v)", err)
	}
	if snap, _ := wire.ReadSnapshot(w.Snapshot); snap.Panes[0].State != "NEEDS_CONFIRMATION" || snap.Panes[0].Witness != WitnessModel {
		t.Errorf("after the model's reading: %+v; want NEEDS_CONFIRMATION by the model", snap.Panes[0])
	}
}
