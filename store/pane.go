package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

// Panes returns every stored pane, ordered by pane number.
func (s *Store) Panes() ([]wire.Pane, error) {
	panes := []wire.Pane{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPanes).ForEach(func(k, v []byte) error {
			var p wire.Pane
			if err := json.Unmarshal(v, &p); err != nil {
				return fmt.Errorf("decode pane %s: %w", k, err)
			}
			panes = append(panes, p)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: panes: %w", err)
	}
	slices.SortFunc(panes, func(a, b wire.Pane) int { return comparePaneID(a.ID, b.ID) })
	return panes, nil
}

// comparePaneID orders tmux pane ids by number, so %2 comes before %10.
// Anything that is not "%<number>" sorts after real ids, by text.
func comparePaneID(a, b string) int {
	na, okA := paneNumber(a)
	nb, okB := paneNumber(b)
	switch {
	case okA && okB:
		if c := cmp.Compare(na, nb); c != 0 {
			return c
		}
	case okA:
		return -1
	case okB:
		return 1
	}
	return strings.Compare(a, b)
}

func paneNumber(id string) (int, bool) {
	digits, ok := strings.CutPrefix(id, "%")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

func putPanes(b *bolt.Bucket, panes []wire.Pane) error {
	for _, p := range panes {
		if err := putJSON(b, []byte(p.ID), p); err != nil {
			return fmt.Errorf("pane %s: %w", p.ID, err)
		}
	}
	return nil
}

func deletePanes(b *bolt.Bucket, ids []string) error {
	for _, id := range ids {
		if err := b.Delete([]byte(id)); err != nil {
			return fmt.Errorf("delete pane %s: %w", id, err)
		}
	}
	return nil
}
