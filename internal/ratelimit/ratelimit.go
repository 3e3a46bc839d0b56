// Package ratelimit counts events per key in a sliding window: notifications per pane,
// actions per pane.
package ratelimit

import (
	"slices"
	"time"
)

// Window remembers each key's recent events. Its keys come and go (panes) for the whole
// life of its owner: it forgets those with no event lately by itself, once per span, so
// it holds at most two spans' worth at a constant cost per event on average. The zero
// value is ready. Not safe for concurrent use: its owner holds its own lock.
type Window struct {
	events map[string][]time.Time
	swept  time.Time // when keys with no event within the span were last dropped
}

// Allow reports whether key may have one more event at now, with at most limit events
// per span (limit 0: no limit), and records the event when it may.
func (w *Window) Allow(key string, now time.Time, limit int, span time.Duration) bool {
	if w.events == nil {
		w.events = map[string][]time.Time{}
	}
	w.sweep(now, span)
	var kept []time.Time
	for _, t := range w.events[key] {
		if now.Sub(t) < span {
			kept = append(kept, t)
		}
	}
	if limit > 0 && len(kept) >= limit {
		w.events[key] = kept
		return false
	}
	w.events[key] = append(kept, now)
	return true
}

// Len is how many keys the window remembers.
func (w *Window) Len() int { return len(w.events) }

// sweep drops the keys with no event within span before now, at most once per span.
func (w *Window) sweep(now time.Time, span time.Duration) {
	if now.Sub(w.swept) < span {
		return
	}
	w.swept = now
	for key, times := range w.events {
		if !slices.ContainsFunc(times, func(t time.Time) bool { return now.Sub(t) < span }) {
			delete(w.events, key)
		}
	}
}
