package store

import (
	"fmt"
	"slices"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

const triggerLimit = 2000

// AddTrigger records an action, dropping the oldest beyond the limit.
func (s *Store) AddTrigger(t wire.Trigger) error { return triggerLog.add(s, t) }

// Triggers returns the newest limit actions (all when limit <= 0), of one pane or all,
// oldest first.
func (s *Store) Triggers(paneID string, limit int) ([]wire.Trigger, error) {
	return triggerLog.newest(s, limit, func(t wire.Trigger) bool { return paneID == "" || t.PaneID == paneID })
}

// Enqueue keeps a prompt until its pane is READY; it survives daemon restarts.
func (s *Store) Enqueue(q wire.Queued) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return putJSON(tx.Bucket(bucketQueue), []byte(q.ID), q) })
	if err != nil {
		return fmt.Errorf("store: enqueue: %w", err)
	}
	return nil
}

// Queue returns the queued prompts, oldest first.
func (s *Store) Queue() ([]wire.Queued, error) {
	out := []wire.Queued{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketQueue).ForEach(func(_, v []byte) error {
			var q wire.Queued
			if decoded(v, &q) {
				out = append(out, q)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: queue: %w", err)
	}
	sortQueued(out)
	return out, nil
}

// Dequeue removes a queued prompt.
func (s *Store) Dequeue(id string) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketQueue).Delete([]byte(id)) })
	if err != nil {
		return fmt.Errorf("store: dequeue: %w", err)
	}
	return nil
}

func sortQueued(q []wire.Queued) {
	slices.SortStableFunc(q, func(a, b wire.Queued) int { return a.At.Compare(b.At) })
}
