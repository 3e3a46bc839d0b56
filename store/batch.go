package store

import (
	"fmt"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

// Batch is one set of changes the daemon saw in a tick.
type Batch struct {
	Put         []wire.Pane       // panes to create or replace, by ID
	Delete      []string          // ids of panes that are gone
	Transitions []wire.Transition // appended to each pane's history
}

// Empty: the batch changes nothing.
func (b Batch) Empty() bool { return len(b.Put)+len(b.Delete)+len(b.Transitions) == 0 }

// Apply writes b in one transaction, so a reader never sees half a tick:
// puts first, then deletes (a pane in both ends up deleted), then
// transitions, after which each touched pane keeps only its newest
// HistoryLimit transitions. Deleting a pane keeps its history until
// PruneHistory.
func (s *Store) Apply(b Batch) error {
	if b.Empty() {
		return nil
	}
	if err := b.check(); err != nil {
		return fmt.Errorf("store: apply: %w", err)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		panes := tx.Bucket(bucketPanes)
		if err := putPanes(panes, b.Put); err != nil {
			return err
		}
		if err := deletePanes(panes, b.Delete); err != nil {
			return err
		}
		return appendHistory(tx.Bucket(bucketHistory), b.Transitions, s.historyLimit)
	})
	if err != nil {
		return fmt.Errorf("store: apply: %w", err)
	}
	return nil
}

func (b Batch) check() error {
	for _, p := range b.Put {
		if p.ID == "" {
			return fmt.Errorf("put: %w", ErrNoPaneID)
		}
	}
	for _, id := range b.Delete {
		if id == "" {
			return fmt.Errorf("delete: %w", ErrNoPaneID)
		}
	}
	for _, t := range b.Transitions {
		if t.PaneID == "" {
			return fmt.Errorf("transition: %w", ErrNoPaneID)
		}
	}
	return nil
}
