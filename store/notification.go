package store

import "time"

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
func (s *Store) AddNotification(n Notification) error { return notificationLog.add(s, n) }

// Notifications returns the newest limit notifications (all when limit <= 0), of one
// pane or of all (""), oldest first.
func (s *Store) Notifications(paneID string, limit int) ([]Notification, error) {
	return notificationLog.newest(s, limit, func(n Notification) bool { return paneID == "" || n.PaneID == paneID })
}
