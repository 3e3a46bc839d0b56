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
