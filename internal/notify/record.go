package notify

import "github.com/paneherd/paneherd/internal/wire"

// HistoryRecord is how a sent (or failed) notification is kept in the store's history:
// the backends that delivered it, and what failed where no other backend covered.
func HistoryRecord(s Sent) wire.Notification {
	rec := wire.Notification{At: s.At, PaneID: s.PaneID, Event: string(s.Event), State: s.State, Title: s.Title, Body: s.Body,
		Backend: s.Backends()}
	if err := s.Failure(); err != nil {
		rec.Error = err.Error()
	}
	return rec
}
