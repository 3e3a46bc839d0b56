// Package ratelimit counts events per key in a sliding window: notifications per pane,
// actions per pane.
package ratelimit

import (
	"slices"
	"time"
)

// Window remembers each key's recent events. Not safe for concurrent use: its owner
// holds its own lock.
type Window map[string][]time.Time

// Allow reports whether key may have one more event at now, with at most limit events
// per span (limit 0: no limit), and records the event when it may.
func (w Window) Allow(key string, now time.Time, limit int, span time.Duration) bool {
	var kept []time.Time
	for _, t := range w[key] {
		if now.Sub(t) < span {
			kept = append(kept, t)
		}
	}
	if limit > 0 && len(kept) >= limit {
		w[key] = kept
		return false
	}
	w[key] = append(kept, now)
	return true
}

// Forget drops the keys with no event within span before now. Allow counts none of
// their events, so they are only memory: a long-lived owner whose keys come and go
// (panes) calls it now and then to hold only the keys active lately.
func (w Window) Forget(now time.Time, span time.Duration) {
	for key, times := range w {
		if !slices.ContainsFunc(times, func(t time.Time) bool { return now.Sub(t) < span }) {
			delete(w, key)
		}
	}
}
