package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	var w Window
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for i, want := range []bool{true, true, false} {
		if got := w.Allow("a", at(i), 2, time.Minute); got != want {
			t.Errorf("event %d: %v, want %v", i, got, want)
		}
	}
	if !w.Allow("b", at(3), 2, time.Minute) {
		t.Error("another key was limited")
	}
	if !w.Allow("a", at(61), 2, time.Minute) {
		t.Error("the window did not slide")
	}
	if !w.Allow("c", at(0), 0, time.Minute) || !w.Allow("c", at(0), 0, time.Minute) {
		t.Error("limit 0 limited")
	}
}

// TestWindowForgetsQuietKeys: keys come and go; the window keeps only the recent ones,
// and never an event still inside the span.
func TestWindowForgetsQuietKeys(t *testing.T) {
	var w Window
	at := time.Unix(1_700_000_000, 0)
	for i := range 5000 {
		at = at.Add(10 * time.Second)
		w.Allow(fmt.Sprint(i), at, 2, time.Minute)
	}
	if w.Len() > 13 {
		t.Errorf("the window remembers %d keys after 5000 that each had one event; want about two minutes' worth", w.Len())
	}
	w.Allow("busy", at, 1, time.Minute)
	if w.Allow("busy", at.Add(59*time.Second), 1, time.Minute) {
		t.Error("forgetting lost an event still inside the span")
	}
}
