package packs

import (
	"path/filepath"
	"testing"

	"github.com/paneherd/paneherd/internal/state"
)

// TestTransientIdleFramesWaitTheSettle: idle prompts a real CLI drew inside a turn
// (testdata/transient) read at most READY by a rule that waits the pack's settle time,
// never by a rule with its own short settle, which would show them READY.
func TestTransientIdleFramesWaitTheSettle(t *testing.T) {
	set := builtinSet(t)
	frames, _ := filepath.Glob(filepath.Join("testdata", "transient", "*", "*.txt"))
	if len(frames) == 0 {
		t.Fatal("no transient frames found")
	}
	for _, frame := range frames {
		pack := mustPack(t, set, filepath.Base(filepath.Dir(frame)))
		got := pack.Classify(readScreen(t, frame))
		switch {
		case got.State != state.Ready && got.State != state.Busy && got.State != state.Unknown:
			t.Errorf("%s: %s (rule %q), want READY, BUSY or UNKNOWN", frame, got.State, got.Rule)
		case got.Settle > 0:
			t.Errorf("%s: READY by %q after only %v: this screen shows inside a turn", frame, got.Rule, got.Settle)
		}
	}
}
