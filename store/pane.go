package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Pane is the last known state of one tmux pane. State holds the state
// name ("READY", "BUSY", …) as plain text so the store does not depend on
// the package that defines the states.
type Pane struct {
	ID          string `json:"pane_id"` // tmux pane id, "%3"
	Session     string `json:"session"`
	Window      string `json:"window"`
	WindowIndex int    `json:"window_index"`
	PaneIndex   int    `json:"pane_index"`
	Name        string `json:"name"`
	Pack        string `json:"pack"`
	State       string `json:"state"`
	Rule        string `json:"rule"`
	// Witness says who holds the state: "screen" (its pack's reading) or "hook" (an
	// agent hook's event the screen has not confirmed yet).
	Witness  string    `json:"witness,omitempty"`
	Summary  string    `json:"summary"`
	Since    time.Time `json:"since"`
	Command  string    `json:"command"`
	PID      int       `json:"pid"`
	CWD      string    `json:"cwd"`
	LastSeen time.Time `json:"last_seen"`
	// Server is the tmux server process the pane belonged to ("pid:start_time"): pane ids
	// restart at %0 when a server restarts on the same socket.
	Server string `json:"server"`
	// Host is the machine the pane is on, as @paneherd-hosts names it; "" for this
	// server's own. Never stored: other machines' panes live in the fleet's memory.
	Host string `json:"host,omitempty"`
}

// Panes returns every stored pane, ordered by pane number.
func (s *Store) Panes() ([]Pane, error) {
	panes := []Pane{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPanes).ForEach(func(k, v []byte) error {
			var p Pane
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
	slices.SortFunc(panes, func(a, b Pane) int { return comparePaneID(a.ID, b.ID) })
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

func putPanes(b *bolt.Bucket, panes []Pane) error {
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
