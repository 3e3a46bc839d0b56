package store

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

func TestTriggersAndQueueSurviveReopen(t *testing.T) {
	path := testPath(t)
	s := mustOpen(t, path, Options{})
	t0 := time.Unix(1_700_000_000, 0).UTC()
	for i, pane := range []string{"%1", "%2", "%1"} {
		if err := s.AddTrigger(wire.Trigger{ID: string(rune('a' + i)), Kind: "send", PaneID: pane, At: t0.Add(time.Duration(i) * time.Second), Outcome: "DELIVERED"}); err != nil {
			t.Fatal(err)
		}
	}
	s.Enqueue(wire.Queued{ID: "q2", PaneID: "%2", Text: "second", At: t0.Add(time.Minute)})
	s.Enqueue(wire.Queued{ID: "q1", PaneID: "%1", Text: "first", At: t0})
	s.Close()

	s = mustOpen(t, path, Options{})
	defer s.Close()
	got, _ := s.Triggers("%1", 0)
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "c" {
		t.Errorf("triggers of %%1 = %+v", got)
	}
	q, _ := s.Queue()
	if len(q) != 2 || q[0].ID != "q1" || q[1].Text != "second" {
		t.Fatalf("queue = %+v, want oldest first", q)
	}
	s.Dequeue("q1")
	if q, _ := s.Queue(); len(q) != 1 || q[0].ID != "q2" {
		t.Errorf("after dequeue: %+v", q)
	}
}
