package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// sampleEvery is the grid agreement is judged on.
const sampleEvery = 100 * time.Millisecond

// agreement is how often the state paneherd reported (the snapshot) was the true state
// (what each player last drew), on a 100 ms grid over the window, and why it was not.
type agreement struct {
	samples, agree int
	// Mismatches by cause:
	settling int            // the truth is READY, within the pack's settle time of it: READY may not show yet (by design)
	late     map[string]int // within 1 s of a change, by "true<-reported"
	wrong    map[string]int // later than that, by "true<-reported"
	first    int            // before the snapshot showed the pane at all
}

// lateFor is how long after a change (for READY, after its settle time) a mismatch counts
// as late rather than wrong.
const lateFor = time.Second

// measureAgreement compares, for each pane a player logs, the true state with the reported
// one at every sample from start to end.
func measureAgreement(w *world, seen map[string][]observation, start, end time.Time) agreement {
	a := agreement{late: map[string]int{}, wrong: map[string]int{}}
	for pane, log := range w.logs {
		truth := readChanges(log)
		if len(truth) == 0 {
			continue
		}
		for t := start; t.Before(end); t = t.Add(sampleEvery) {
			want, since, ok := stateAt(truth, t)
			if !ok {
				continue
			}
			settle := w.readySettle(pane, stateBefore(truth, since), readyRuleFrom(seen[pane], since, changeAfter(truth, since)))
			a.samples++
			got, _, shown := stateAt(seen[pane], t)
			switch {
			case shown && got == want:
				a.agree++
			case !shown:
				a.first++
			case want == "READY" && t.Sub(since) < settle:
				a.settling++
			case t.Sub(since) < lateFor || (want == "READY" && t.Sub(since) < settle+lateFor):
				a.late[want+"<-"+got]++
			default:
				a.wrong[want+"<-"+got]++
			}
		}
	}
	return a
}

// stateAt is the last state at or before t, and since when it held.
func stateAt(obs []observation, t time.Time) (string, time.Time, bool) {
	i := sort.Search(len(obs), func(i int) bool { return obs[i].at.After(t) })
	if i == 0 {
		return "", time.Time{}, false
	}
	return obs[i-1].state, obs[i-1].at, true
}

// readyRuleFrom is the rule of the first READY shown at or after since and before until
// (zero: no end), "" when none: the rule that read the READY screen which began then.
func readyRuleFrom(obs []observation, since, until time.Time) string {
	for _, ob := range obs[sort.Search(len(obs), func(i int) bool { return !obs[i].at.Before(since) }):] {
		if !until.IsZero() && !ob.at.Before(until) {
			break
		}
		if ob.state == "READY" {
			return ob.rule
		}
	}
	return ""
}

// changeAfter is when the state after the one that began at since began (zero: none).
func changeAfter(obs []observation, since time.Time) time.Time {
	i := sort.Search(len(obs), func(i int) bool { return obs[i].at.After(since) })
	if i == len(obs) {
		return time.Time{}
	}
	return obs[i].at
}

// stateBefore is the state that held before the one that began at since ("": none).
func stateBefore(obs []observation, since time.Time) string {
	i := sort.Search(len(obs), func(i int) bool { return !obs[i].at.Before(since) })
	if i == 0 {
		return ""
	}
	return obs[i-1].state
}

func (a agreement) percent() float64 {
	if a.samples == 0 {
		return 0
	}
	return 100 * float64(a.agree) / float64(a.samples)
}

// settlingShare is the share of samples where the truth was READY within its settle time
// and READY did not show yet: the disagreement READY's settle costs by design.
func (a agreement) settlingShare() float64 {
	if a.samples == 0 {
		return 0
	}
	return 100 * float64(a.settling) / float64(a.samples)
}

// breakdown says where the disagreement went, largest first.
func (a agreement) breakdown() string {
	if a.samples == 0 {
		return "no samples"
	}
	pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(a.samples)) }
	parts := []string{"settling " + pct(a.settling), "not yet seen " + pct(a.first)}
	for _, group := range []struct {
		name   string
		counts map[string]int
	}{{"late", a.late}, {"wrong", a.wrong}} {
		total := 0
		var pairs []string
		for pair, n := range group.counts {
			total += n
			pairs = append(pairs, pair)
		}
		sort.Slice(pairs, func(i, j int) bool { return group.counts[pairs[i]] > group.counts[pairs[j]] })
		var top []string
		for _, p := range pairs[:min(3, len(pairs))] {
			top = append(top, p+" "+pct(group.counts[p]))
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", group.name, pct(total), strings.Join(top, ", ")))
	}
	return strings.Join(parts, "; ")
}
