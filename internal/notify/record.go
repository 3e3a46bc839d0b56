package notify

import "github.com/paneherd/paneherd/store"

// HistoryRecord is how a sent (or failed) notification is kept in the store's history.
func HistoryRecord(s Sent) store.Notification {
	rec := store.Notification{At: s.At, PaneID: s.PaneID, Event: string(s.Event), State: s.State, Title: s.Title, Body: s.Body,
		Backend: s.Backend}
	if s.Err != nil {
		rec.Error = s.Err.Error()
	}
	return rec
}
