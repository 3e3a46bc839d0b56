package store

import (
	"encoding/json"
	"fmt"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

// A stored record that no longer decodes (bytes changed on disk, a damaged page) is
// skipped by every reader of histories and of the queue: one bad record must not hide
// all the others until trimming drops it. Damaged counts them, for `paneherd doctor`.

// decoded reports whether v decodes into rec; a reader skips the record when not.
func decoded(v []byte, rec any) bool { return json.Unmarshal(v, rec) == nil }

// Damaged counts the records the readers skip because they no longer decode: pane
// histories, notifications, actions, worker events and queued prompts.
func (s *Store) Damaged() (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		n += undecodable[wire.Notification](tx.Bucket(bucketNotes)) + undecodable[wire.Trigger](tx.Bucket(bucketTrig)) +
			undecodable[wire.WorkerEvent](tx.Bucket(bucketEvents)) + undecodable[wire.Queued](tx.Bucket(bucketQueue))
		history := tx.Bucket(bucketHistory)
		return history.ForEachBucket(func(id []byte) error {
			n += undecodable[wire.Transition](history.Bucket(id))
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("store: count damaged records: %w", err)
	}
	return n, nil
}

// undecodable counts the records of b that do not decode into a T.
func undecodable[T any](b *bolt.Bucket) int {
	n := 0
	_ = b.ForEach(func(_, v []byte) error {
		var rec T
		if !decoded(v, &rec) {
			n++
		}
		return nil
	})
	return n
}
