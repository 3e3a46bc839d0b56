// Package ratelimit counts events per key in a sliding window: notifications per pane,
// actions per pane.
package ratelimit

import "time"

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
