package main

import (
	"slices"
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
)

// TestTargetNamesOfferTheFleetsPanes: completion offers a remote pane as HOST:NAME, which
// every command taking a TARGET reads as that host's pane.
func TestTargetNamesOfferTheFleetsPanes(t *testing.T) {
	snap := wire.Snapshot{
		Panes:  []wire.Pane{{ID: "%1", Name: "api", Session: "a"}},
		Remote: []wire.Pane{{ID: "%1", Host: "devbox", Name: "api", Session: "a"}, {ID: "%2", Host: "gpu1", Name: "train\x1b[2J", Session: "a"}},
	}
	got := targetNames(snap)
	if want := []string{"api", "devbox:api", "gpu1:train?[2J"}; !slices.Equal(got, want) {
		t.Errorf("targetNames = %q, want %q", got, want)
	}
}
