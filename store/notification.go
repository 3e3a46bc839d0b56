package store

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Notification is one notification paneherd sent, or tried to.
type Notification struct {
	At      time.Time `json:"at"`
	PaneID  string    `json:"pane_id"`
	Event   string    `json:"event"`
	Title   string    `json:"title"`
	Body    string    `json:"body"`
	Backend string    `json:"backend"`         // "desktop", "tmux", or "" when none could
	Error   string    `json:"error,omitempty"` // why a backend failed
}

// notificationLimit bounds the notification history.
const notificationLimit = 1000

// AddNotification records a notification, dropping the oldest beyond the limit.
func (s *Store) AddNotification(n Notification) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNotes)
		if err := appendJSON(b, n); err != nil {
			return err
		}
		return trim(b, notificationLimit)
	})
	if err != nil {
		return fmt.Errorf("store: add notification: %w", err)
	}
	return nil
}

// Notifications returns the newest limit notifications (all when limit <= 0), of one
// pane or of all ("" ), oldest first.
func (s *Store) Notifications(paneID string, limit int) ([]Notification, error) {
	out := []Notification{}
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketNotes).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var n Notification
			if err := json.Unmarshal(v, &n); err != nil {
				return fmt.Errorf("decode notification: %w", err)
			}
			if paneID == "" || n.PaneID == paneID {
				out = append(out, n)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: notifications: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
