package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// READY's latency past its settle time counts from the settle that applies: the pack's
// settle_after_work after a busy screen or a dialog, its whole settle after an error, and
// the own settle of the rule that read the READY screen, where it has one.
func TestReadySettledCountsFromTheSettleThatApplies(t *testing.T) {
	t0 := time.Unix(1000, 0)
	log := filepath.Join(t.TempDir(), "player.log")
	at := func(d time.Duration) int64 { return t0.Add(d).UnixNano() }
	os.WriteFile(log, []byte(fmt.Sprintf("%d BUSY\n%d READY\n%d ERROR\n%d READY\n%d ERROR\n%d READY\n",
		at(0), at(2*time.Second), at(4*time.Second), at(6*time.Second), at(8*time.Second), at(10*time.Second))), 0o644)
	w := &world{logs: map[string]string{"%1": log}, settle: map[string]time.Duration{"%1": time.Second},
		afterWork:  map[string]time.Duration{"%1": 200 * time.Millisecond},
		ruleSettle: map[string]map[string]time.Duration{"%1": {"turn-done": 250 * time.Millisecond}}}
	seen := map[string][]observation{"%1": {
		{t0.Add(50 * time.Millisecond), "BUSY", "spinner"},
		{t0.Add(2250 * time.Millisecond), "READY", "input-box"},
		{t0.Add(4100 * time.Millisecond), "ERROR", "api-error"},
		{t0.Add(7100 * time.Millisecond), "READY", "input-box"},
		{t0.Add(8100 * time.Millisecond), "ERROR", "api-error"},
		{t0.Add(10300 * time.Millisecond), "READY", "turn-done"},
	}}
	got := latencies(w, seen, t0)[readySettled]
	if want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 50 * time.Millisecond}; !slices.Equal(got, want) {
		t.Errorf("READY past its settle = %v; want %v (after work: 250 ms less 200; after an error: 1.1 s less 1 s; read by a rule settled in 250 ms: 300 ms less 250)", got, want)
	}
}
