package store

import (
	"fmt"
	"slices"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

// boundedLog is a bucket of JSON records keyed by sequence that keeps only its newest
// limit: the notifications, the actions and the workers' events are each one.
type boundedLog[T any] struct {
	bucket []byte
	limit  int
	what   string // the record's name in errors ("notification")
}

var (
	notificationLog = boundedLog[wire.Notification]{bucketNotes, notificationLimit, "notification"}
	triggerLog      = boundedLog[wire.Trigger]{bucketTrig, triggerLimit, "trigger"}
	workerEventLog  = boundedLog[wire.WorkerEvent]{bucketEvents, workerEventLimit, "worker event"}
)

// add records rec, dropping the oldest beyond the log's limit.
func (l boundedLog[T]) add(s *Store, rec T) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(l.bucket)
		if err := appendJSON(b, rec); err != nil {
			return err
		}
		return trim(b, l.limit)
	})
	if err != nil {
		return fmt.Errorf("store: add %s: %w", l.what, err)
	}
	return nil
}

// newest returns the newest limit records that keep accepts (all when limit <= 0),
// oldest first.
func (l boundedLog[T]) newest(s *Store, limit int, keep func(rec T) bool) ([]T, error) {
	out := []T{}
	err := s.db.View(func(tx *bolt.Tx) error {
		newestFirst(tx.Bucket(l.bucket), limit, func(rec T) bool {
			if !keep(rec) {
				return false
			}
			out = append(out, rec)
			return true
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: %ss: %w", l.what, err)
	}
	slices.Reverse(out)
	return out, nil
}

// newestFirst walks a sequence-keyed bucket from its newest record, handing each one
// that decodes to take, until take has accepted limit of them (all when limit <= 0).
func newestFirst[T any](b *bolt.Bucket, limit int, take func(rec T) bool) {
	c := b.Cursor()
	n := 0
	for k, v := c.Last(); k != nil && (limit <= 0 || n < limit); k, v = c.Prev() {
		var rec T
		if decoded(v, &rec) && take(rec) {
			n++
		}
	}
}
