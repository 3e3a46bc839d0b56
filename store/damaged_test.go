package store

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

// spoil overwrites the stored value at key in the bucket at path (a bucket, then the
// buckets nested in it) with bytes that are no JSON, as a damaged page would leave it.
func spoil(t *testing.T, s *Store, key []byte, path ...[]byte) {
	t.Helper()
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(path[0])
		for _, name := range path[1:] {
			b = b.Bucket(name)
		}
		if b.Get(key) == nil {
			t.Fatalf("no record %x in %s", key, bytes.Join(path, []byte("/")))
		}
		return b.Put(key, []byte("\x00\x17{\"at\":"))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func seq(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// TestDamagedRecordsAreSkippedAndCounted: one record that no longer decodes leaves every
// other one readable, whether a pane's history, everybody's or the newest few are asked
// for; Damaged counts it, for doctor.
func TestDamagedRecordsAreSkippedAndCounted(t *testing.T) {
	s := openTemp(t)
	mustApply(t, s, Batch{Transitions: []wire.Transition{transition("%1", t0, "a"), transition("%1", t0.Add(time.Second), "b"),
		transition("%1", t0.Add(2*time.Second), "c"), transition("%2", t0.Add(3*time.Second), "other")}})
	for i, pane := range []string{"%1", "%1", "%2"} {
		at := t0.Add(time.Duration(i) * time.Second)
		mustDo(t, s.AddNotification(wire.Notification{At: at, PaneID: pane, Event: "finished"}))
		mustDo(t, s.AddTrigger(wire.Trigger{ID: string(rune('x' + i)), Kind: "send", PaneID: pane, At: at, Outcome: "DELIVERED"}))
		mustDo(t, s.AddWorkerEvent(wire.WorkerEvent{At: at, Worker: "w", PaneID: pane, Kind: "ready"}))
	}
	mustDo(t, s.Enqueue(wire.Queued{ID: "q1", PaneID: "%1", Text: "one", At: t0}))
	mustDo(t, s.Enqueue(wire.Queued{ID: "q2", PaneID: "%1", Text: "two", At: t0.Add(time.Second)}))
	if n, err := s.Damaged(); err != nil || n != 0 {
		t.Fatalf("Damaged of a sound store = %d, %v; want 0", n, err)
	}

	spoil(t, s, seq(2), bucketHistory, []byte("%1"))
	spoil(t, s, seq(1), bucketNotes)
	spoil(t, s, seq(2), bucketTrig)
	spoil(t, s, seq(3), bucketEvents)
	spoil(t, s, []byte("q1"), bucketQueue)

	if got, want := summaries(t, s, "%1", 0), []string{"a", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("history of %%1 = %v, want %v", got, want)
	}
	if got, want := summaries(t, s, "", 0), []string{"a", "c", "other"}; !reflect.DeepEqual(got, want) {
		t.Errorf("everybody's history = %v, want %v", got, want)
	}
	if got, want := summaries(t, s, "%1", 2), []string{"a", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("newest 2 of %%1 = %v, want %v (a damaged record is not one of them)", got, want)
	}
	if ns, err := s.Notifications("", 0); err != nil || len(ns) != 2 {
		t.Errorf("notifications = %+v, %v; want the 2 sound ones", ns, err)
	}
	if ts, err := s.Triggers("%1", 0); err != nil || len(ts) != 1 || ts[0].ID != "x" {
		t.Errorf("triggers of %%1 = %+v, %v; want x", ts, err)
	}
	if es, err := s.WorkerEvents("", 0); err != nil || len(es) != 2 {
		t.Errorf("worker events = %+v, %v; want the 2 sound ones", es, err)
	}
	if q, err := s.Queue(); err != nil || len(q) != 1 || q[0].ID != "q2" {
		t.Errorf("queue = %+v, %v; want q2", q, err)
	}
	if n, err := s.Damaged(); err != nil || n != 5 {
		t.Errorf("Damaged = %d, %v; want 5", n, err)
	}
}

// TestPruneDropsADamagedRecordOfAGonePane: a record that cannot be dated cannot stop the
// history of a pane long gone from being pruned.
func TestPruneDropsADamagedRecordOfAGonePane(t *testing.T) {
	s := openTemp(t)
	mustApply(t, s, Batch{Transitions: []wire.Transition{transition("%1", t0, "a"), transition("%1", t0.Add(time.Second), "b")}})
	spoil(t, s, seq(2), bucketHistory, []byte("%1"))
	if err := s.PruneHistory(t0.Add(time.Hour)); err != nil {
		t.Fatalf("PruneHistory: %v", err)
	}
	if got := summaries(t, s, "", 0); len(got) != 0 {
		t.Errorf("history after pruning a gone pane = %v, want none", got)
	}
	if n, _ := s.Damaged(); n != 0 {
		t.Errorf("Damaged after pruning = %d, want 0", n)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
