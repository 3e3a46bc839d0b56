package store

import "github.com/paneherd/paneherd/internal/wire"

// notificationLimit bounds the notification history.
const notificationLimit = 1000

// AddNotification records a notification, dropping the oldest beyond the limit.
func (s *Store) AddNotification(n wire.Notification) error { return notificationLog.add(s, n) }

// Notifications returns the newest limit notifications (all when limit <= 0), of one
// pane or of all (""), oldest first.
func (s *Store) Notifications(paneID string, limit int) ([]wire.Notification, error) {
	return notificationLog.newest(s, limit, func(n wire.Notification) bool { return paneID == "" || n.PaneID == paneID })
}
