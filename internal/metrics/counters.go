package metrics

import (
	"sync"

	"github.com/paneherd/paneherd/internal/state"
)

const (
	counter = "counter"
	gauge   = "gauge"
)

// family is one metric as the text shows it: name, HELP text, TYPE, and its series now.
type family struct {
	name, kind, help string
	read             func() []series // its series now, in any order; the text sorts them
}

// series is one series: its labels as the text writes them (labels), and its value.
type series struct {
	labels string
	value  uint64
}

// counters is a counter family: one count per set of label values, made at 0 on first use.
type counters struct {
	family
	mu     sync.Mutex
	counts map[string]uint64 // by labels(…): label values that escape alike are one series
}

func newCounters(name, help string) *counters {
	c := &counters{family: family{name: name, kind: counter, help: help}, counts: map[string]uint64{}}
	c.read = c.series
	return c
}

// add adds n to the counter with these label pairs (name, value, name, value, …; names
// always in the same order); add(0, …) shows a series before its first count.
func (c *counters) add(n uint64, pairs ...string) {
	key := labels(pairs...)
	c.mu.Lock()
	c.counts[key] += n
	c.mu.Unlock()
}

func (c *counters) series() []series {
	c.mu.Lock()
	defer c.mu.Unlock()
	ss := make([]series, 0, len(c.counts))
	for k, n := range c.counts {
		ss = append(ss, series{k, n})
	}
	return ss
}

// paneStates is the panes gauge: one function, asked once at each scrape for every state.
type paneStates struct {
	family
	mu sync.Mutex
	f  func() map[string]int
}

func newPaneStates() *paneStates {
	p := &paneStates{family: family{name: "paneherd_panes", kind: gauge, help: "Panes watched now, by state."}}
	p.read = p.series
	return p
}

func (p *paneStates) set(f func() map[string]int) {
	p.mu.Lock()
	p.f = f
	p.mu.Unlock()
}

// series: every state in state.All, at 0 unless the function counts it, and any other
// name the function gives. The function runs outside the lock: it takes the watcher's.
func (p *paneStates) series() []series {
	p.mu.Lock()
	f := p.f
	p.mu.Unlock()
	var counts map[string]int
	if f != nil {
		counts = f()
	}
	var ss []series
	for _, st := range state.All {
		if _, ok := counts[string(st)]; !ok {
			ss = append(ss, series{labels("state", string(st)), 0})
		}
	}
	for name, n := range counts {
		ss = append(ss, series{labels("state", name), uint64(max(n, 0))})
	}
	return ss
}
