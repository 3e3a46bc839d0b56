package wire

import (
	"testing"
	"time"
)

func TestFollowDiff(t *testing.T) {
	at := time.Now()
	a := Pane{ID: "%1", State: "READY"}
	b := Pane{ID: "%2", State: "BUSY"}
	bDone := Pane{ID: "%2", State: "READY"}
	c := Pane{ID: "%3", State: "UNKNOWN"}
	line, changed := FollowDiff([]Pane{a, b}, []Pane{a, bDone, c}, at)
	if !changed || line.Type != FollowChange || len(line.Panes) != 2 || line.Panes[0] != bDone || line.Panes[1] != c || len(line.Gone) != 0 {
		t.Errorf("a change and a pane come: %+v", line)
	}
	line, changed = FollowDiff([]Pane{a, b}, []Pane{b}, at)
	if !changed || len(line.Panes) != 0 || len(line.Gone) != 1 || line.Gone[0] != "%1" {
		t.Errorf("a pane gone: %+v", line)
	}
	if _, changed := FollowDiff([]Pane{a, b}, []Pane{b, a}, at); changed {
		t.Error("the same panes in another order are no change")
	}
}
