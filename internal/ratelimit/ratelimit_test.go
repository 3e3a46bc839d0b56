package ratelimit

import (
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	w := Window{}
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

func TestWindowForget(t *testing.T) {
	w := Window{}
	t0 := time.Unix(1_700_000_000, 0)
	w.Allow("old", t0, 2, time.Minute)
	w.Allow("both", t0, 2, time.Minute)
	w.Allow("both", t0.Add(50*time.Second), 2, time.Minute)
	w.Allow("new", t0.Add(55*time.Second), 2, time.Minute)
	w.Forget(t0.Add(time.Minute), time.Minute)
	if _, ok := w["old"]; ok || len(w) != 2 {
		t.Errorf("after Forget: %v, want only the keys with an event inside the span", w)
	}
	if w.Allow("both", t0.Add(61*time.Second), 1, time.Minute) {
		t.Error("Forget lost an event still inside the span")
	}
}
