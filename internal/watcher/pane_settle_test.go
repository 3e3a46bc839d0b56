package watcher

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/packs"
)

// A READY rule's own settle time (an idle screen its CLI draws only when a turn is over)
// replaces the pack's for the screens it reads; every other reading waits the pack's.
func TestAFinalIdleScreenWaitsItsRulesSettle(t *testing.T) {
	pack := &packs.Pack{Settle: packs.Duration{Duration: time.Second}}
	final := &pane{pack: pack, read: reading{result: packs.Result{State: state.Ready, Rule: "turn-done", Settle: 250 * time.Millisecond}}}
	if got := observation(final, time.Now()).Settle; got != 250*time.Millisecond {
		t.Errorf("a final idle screen settles in %v, want its rule's 250ms", got)
	}
	other := &pane{pack: pack, read: reading{result: packs.Result{State: state.Ready, Rule: "input-box"}}}
	if got := observation(other, time.Now()).Settle; got != time.Second {
		t.Errorf("another idle screen settles in %v, want the pack's 1s", got)
	}
}
