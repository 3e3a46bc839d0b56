package store

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Notification is one notification paneherd sent, or tried to.
type Notification struct {
	At      time.Time `json:"at"`
	PaneID  string    `json:"pane_id"`
	Event   string    `json:"event"`
	State   string    `json:"state,omitempty"` // the pane's state it told of: the notifier's dedupe key has it
	Title   string    `json:"title"`
	Body    string    `json:"body"`
	Backend string    `json:"backend"`         // the backends that delivered it ("desktop, webhook"), "" when none did
	Error   string    `json:"error,omitempty"` // why backends failed, each named
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
		newestFirst(tx.Bucket(bucketNotes), limit, func(n Notification) bool {
			if paneID != "" && n.PaneID != paneID {
				return false
			}
			out = append(out, n)
			return true
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: notifications: %w", err)
	}
	reverse(out)
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

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
