package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

func transition(pane string, at time.Time, summary string) wire.Transition {
	return wire.Transition{PaneID: pane, At: at, From: "BUSY", To: "READY", Rule: "prompt", Summary: summary}
}

func summaries(t *testing.T, s *Store, paneID string, limit int) []string {
	t.Helper()
	ts, err := s.Transitions(paneID, limit)
	if err != nil {
		t.Fatalf("Transitions(%q, %d): %v", paneID, limit, err)
	}
	out := []string{}
	for _, tr := range ts {
		out = append(out, tr.Summary)
	}
	return out
}

func TestHistoryBounded(t *testing.T) {
	s := mustOpen(t, testPath(t), Options{HistoryLimit: 5})
	for batch := 0; batch < 3; batch++ {
		var ts []wire.Transition
		for i := 0; i < 4; i++ {
			n := batch*4 + i
			ts = append(ts, transition("%1", t0.Add(time.Duration(n)*time.Second), fmt.Sprint(n)))
		}
		ts = append(ts, transition("%2", t0, fmt.Sprintf("other%d", batch)))
		mustApply(t, s, Batch{Transitions: ts})
	}
	if got, want := summaries(t, s, "%1", 0), []string{"7", "8", "9", "10", "11"}; !reflect.DeepEqual(got, want) {
		t.Errorf("history of %%1 = %v, want %v", got, want)
	}
	if got, want := summaries(t, s, "%2", 0), []string{"other0", "other1", "other2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("history of %%2 = %v, want %v", got, want)
	}
}

// TestHistoryLimitIsWhatApplyKeeps: HistoryLimit says how many transitions a pane keeps,
// the default one included (a failing store's waiting changes are bounded by it).
func TestHistoryLimitIsWhatApplyKeeps(t *testing.T) {
	if got := mustOpen(t, testPath(t), Options{}).HistoryLimit(); got != defaultHistoryLimit {
		t.Errorf("HistoryLimit() with the default = %d, want %d", got, defaultHistoryLimit)
	}
	if got := mustOpen(t, testPath(t), Options{HistoryLimit: 5}).HistoryLimit(); got != 5 {
		t.Errorf("HistoryLimit() = %d, want 5", got)
	}
}

func TestHistoryRoundTrip(t *testing.T) {
	s := openTemp(t)
	want := wire.Transition{PaneID: "%7", At: t0, From: "READY", To: "NEEDS_CONFIRMATION", Rule: "confirm", Summary: "Allow edit?"}
	mustApply(t, s, Batch{Transitions: []wire.Transition{want}})
	got, err := s.Transitions("%7", 10)
	if err != nil {
		t.Fatalf("Transitions: %v", err)
	}
	if !reflect.DeepEqual(got, []wire.Transition{want}) {
		t.Fatalf("Transitions = %+v, want %+v", got, []wire.Transition{want})
	}
}

func TestHistoryOutlivesPaneAndReopen(t *testing.T) {
	path := testPath(t)
	s := mustOpen(t, path, Options{})
	mustApply(t, s, Batch{Put: []wire.Pane{{ID: "%1"}}, Transitions: []wire.Transition{transition("%1", t0, "a")}})
	mustApply(t, s, Batch{Delete: []string{"%1"}, Transitions: []wire.Transition{transition("%1", t0.Add(time.Second), "b")}})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = mustOpen(t, path, Options{})
	if got := paneIDs(t, s); len(got) != 0 {
		t.Fatalf("panes after reopen = %v, want none", got)
	}
	if got, want := summaries(t, s, "%1", 0), []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("history after delete and reopen = %v, want %v", got, want)
	}
}

func TestTransitionsQuery(t *testing.T) {
	s := openTemp(t)
	sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	mustApply(t, s, Batch{Transitions: []wire.Transition{
		transition("%10", sec(1), "ten@1"),
		transition("%2", sec(2), "two@2"),
		transition("%10", sec(3), "ten@3"),
		transition("%10", sec(4), "ten@4"),
		transition("%2", sec(4), "two@4"),
		transition("%2", sec(5), "two@5"),
	}})
	tests := []struct {
		name   string
		paneID string
		limit  int
		want   []string
	}{
		{"one pane, all", "%10", 0, []string{"ten@1", "ten@3", "ten@4"}},
		{"one pane, newest two", "%10", 2, []string{"ten@3", "ten@4"}},
		{"unknown pane", "%99", 5, []string{}},
		{"all panes by time, ties by pane number", "", 0, []string{"ten@1", "two@2", "ten@3", "two@4", "ten@4", "two@5"}},
		{"all panes, newest three", "", 3, []string{"two@4", "ten@4", "two@5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summaries(t, s, tt.paneID, tt.limit); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Transitions(%q, %d) = %v, want %v", tt.paneID, tt.limit, got, tt.want)
			}
		})
	}
}

func TestPruneHistory(t *testing.T) {
	s := openTemp(t)
	old, recent := t0, t0.Add(time.Hour)
	mustApply(t, s, Batch{
		Put: []wire.Pane{{ID: "%1"}},
		Transitions: []wire.Transition{
			transition("%1", old, "live-old"), transition("%1", recent, "live-recent"),
			transition("%2", old, "gone-old"), transition("%2", recent, "gone-recent"),
		},
	})

	if err := s.PruneHistory(t0.Add(time.Minute)); err != nil {
		t.Fatalf("PruneHistory: %v", err)
	}
	if got, want := summaries(t, s, "", 0), []string{"live-old", "live-recent", "gone-recent"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after pruning old entries: %v, want %v", got, want)
	}

	if err := s.PruneHistory(t0.Add(24 * time.Hour)); err != nil {
		t.Fatalf("PruneHistory: %v", err)
	}
	if got, want := summaries(t, s, "", 0), []string{"live-old", "live-recent"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after pruning everything of gone panes: %v, want %v", got, want)
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketHistory).Bucket([]byte("%2")) != nil {
			t.Error("the emptied history bucket of %2 is still there")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
