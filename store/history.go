package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

// Transitions returns up to limit of the newest transitions, oldest first.
// An empty paneID merges the history of all panes, ordered by time. A limit
// of zero or less returns everything kept.
func (s *Store) Transitions(paneID string, limit int) ([]wire.Transition, error) {
	out := []wire.Transition{}
	err := s.db.View(func(tx *bolt.Tx) error {
		history := tx.Bucket(bucketHistory)
		if paneID != "" {
			out = newest(history.Bucket([]byte(paneID)), limit)
			return nil
		}
		return history.ForEachBucket(func(id []byte) error {
			out = append(out, newest(history.Bucket(id), limit)...)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: transitions: %w", err)
	}
	if paneID == "" {
		slices.SortStableFunc(out, compareTransitions)
		if limit > 0 && len(out) > limit {
			out = out[len(out)-limit:]
		}
	}
	return out, nil
}

// newest returns the newest limit transitions of one pane's bucket, oldest
// first; none if the pane has no history.
func newest(b *bolt.Bucket, limit int) []wire.Transition {
	ts := []wire.Transition{}
	if b == nil {
		return ts
	}
	newestFirst(b, limit, func(t wire.Transition) bool {
		ts = append(ts, t)
		return true
	})
	slices.Reverse(ts)
	return ts
}

func compareTransitions(a, b wire.Transition) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return comparePaneID(a.PaneID, b.PaneID)
}

// appendHistory adds ts to their panes' histories, then trims every pane it
// touched to limit.
func appendHistory(history *bolt.Bucket, ts []wire.Transition, limit int) error {
	touched := map[string]*bolt.Bucket{}
	for _, t := range ts {
		b, err := history.CreateBucketIfNotExists([]byte(t.PaneID))
		if err != nil {
			return fmt.Errorf("history of %s: %w", t.PaneID, err)
		}
		if err := appendJSON(b, t); err != nil {
			return fmt.Errorf("history of %s: %w", t.PaneID, err)
		}
		touched[t.PaneID] = b
	}
	for id, b := range touched {
		if err := trim(b, limit); err != nil {
			return fmt.Errorf("trim history of %s: %w", id, err)
		}
	}
	return nil
}

// appendJSON adds v under the bucket's next sequence number, so keys sort by age even
// when clocks step backwards.
func appendJSON(b *bolt.Bucket, v any) error {
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(binary.BigEndian.AppendUint64(nil, seq), data)
}

// trim drops the oldest entries of b beyond limit. Keys are sequence numbers, so the
// entries to drop are those at or below sequence-limit: no need to count the rest.
func trim(b *bolt.Bucket, limit int) error {
	seq := b.Sequence()
	if seq <= uint64(limit) {
		return nil
	}
	cutoff := seq - uint64(limit)
	c := b.Cursor()
	for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= cutoff; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// PruneHistory drops transitions older than olderThan from panes that are
// no longer stored, and their history bucket once it is empty. History of
// live panes is bounded by HistoryLimit instead.
func (s *Store) PruneHistory(olderThan time.Time) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		history := tx.Bucket(bucketHistory)
		for _, id := range gonePanes(tx.Bucket(bucketPanes), history) {
			if err := pruneOlder(history, id, olderThan); err != nil {
				return fmt.Errorf("history of %s: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: prune history: %w", err)
	}
	return nil
}

// gonePanes lists the panes that have history but no stored state.
func gonePanes(panes, history *bolt.Bucket) [][]byte {
	var gone [][]byte
	_ = history.ForEachBucket(func(id []byte) error {
		if panes.Get(id) == nil {
			gone = append(gone, bytes.Clone(id))
		}
		return nil
	})
	return gone
}

// pruneOlder drops a gone pane's transitions older than olderThan, and those that no longer
// decode: they cannot be dated, and nobody will read them.
func pruneOlder(history *bolt.Bucket, id []byte, olderThan time.Time) error {
	b := history.Bucket(id)
	var old [][]byte
	_ = b.ForEach(func(k, v []byte) error {
		var t wire.Transition
		if !decoded(v, &t) || t.At.Before(olderThan) {
			old = append(old, bytes.Clone(k))
		}
		return nil
	})
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	if k, _ := b.Cursor().First(); k == nil {
		return history.DeleteBucket(id)
	}
	return nil
}
