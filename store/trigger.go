package store

import (
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Trigger is the audit record of one action paneherd took on a pane for someone: a prompt
// sent, a dialog approved or denied. The payload itself is not kept, only its hash and
// length; a queued prompt's text is kept until it is delivered (Queued).
type Trigger struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"` // send, approve, deny
	PaneID   string    `json:"pane_id"`
	Name     string    `json:"name"`
	At       time.Time `json:"at"`
	Finished time.Time `json:"finished"`
	SHA256   string    `json:"sha256,omitempty"` // of the sanitised payload
	Length   int       `json:"length,omitempty"`
	Choice   string    `json:"choice,omitempty"` // approve: approve, always, deny
	Outcome  string    `json:"outcome"`
	Detail   string    `json:"detail,omitempty"`
	Retries  int       `json:"retries"`
	Forced   bool      `json:"forced,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Envelope string    `json:"envelope,omitempty"` // send --envelope: the id the worker acknowledges
	// Typed: keys of the action may have reached the pane (deliver.Result.Typed). A queued
	// prompt whose audited send typed nothing can go back to the queue without being typed
	// twice.
	Typed bool `json:"typed,omitempty"`
}

// Queued is a prompt waiting for its pane to become READY.
type Queued struct {
	ID     string    `json:"id"`
	PaneID string    `json:"pane_id"`
	Text   string    `json:"text"`
	At     time.Time `json:"at"`
	Forced bool      `json:"forced,omitempty"`
	Reason string    `json:"reason,omitempty"`
	// Envelope is the request's (deliver.SendRequest.Envelope): a queued prompt keeps it.
	Envelope string `json:"envelope,omitempty"`
	// AgentsOnly is the request's too (deliver.SendRequest.AgentsOnly).
	AgentsOnly bool `json:"agents_only,omitempty"`
	// Server is the tmux server the pane belonged to: pane ids restart at %0 with a new
	// server, and a prompt must not go to whichever pane inherits the id.
	Server  string    `json:"server"`
	LastTry time.Time `json:"last_try,omitempty"`
	// Taking is when a daemon took it to send it; it leaves the queue once the send's
	// outcome is audited. One a new daemon finds taken was being sent when its daemon
	// died: it may be typed, so it is never sent again.
	Taking time.Time `json:"taking,omitempty"`
}

const triggerLimit = 2000

// AddTrigger records an action, dropping the oldest beyond the limit.
func (s *Store) AddTrigger(t Trigger) error { return triggerLog.add(s, t) }

// Triggers returns the newest limit actions (all when limit <= 0), of one pane or all,
// oldest first.
func (s *Store) Triggers(paneID string, limit int) ([]Trigger, error) {
	return triggerLog.newest(s, limit, func(t Trigger) bool { return paneID == "" || t.PaneID == paneID })
}

// Enqueue keeps a prompt until its pane is READY; it survives daemon restarts.
func (s *Store) Enqueue(q Queued) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return putJSON(tx.Bucket(bucketQueue), []byte(q.ID), q) })
	if err != nil {
		return fmt.Errorf("store: enqueue: %w", err)
	}
	return nil
}

// Queue returns the queued prompts, oldest first.
func (s *Store) Queue() ([]Queued, error) {
	out := []Queued{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketQueue).ForEach(func(_, v []byte) error {
			var q Queued
			if decoded(v, &q) {
				out = append(out, q)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: queue: %w", err)
	}
	sortQueued(out)
	return out, nil
}

// Dequeue removes a queued prompt.
func (s *Store) Dequeue(id string) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketQueue).Delete([]byte(id)) })
	if err != nil {
		return fmt.Errorf("store: dequeue: %w", err)
	}
	return nil
}

func sortQueued(q []Queued) {
	slices.SortStableFunc(q, func(a, b Queued) int { return a.At.Compare(b.At) })
}
