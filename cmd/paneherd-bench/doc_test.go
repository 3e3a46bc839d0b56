package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The bench's block of docs/performance.md: a table per scenario, each cell the median
// over the runs with the lowest and highest run, "-" for what a watcher that writes no
// snapshot cannot be measured on; written into its page between its two lines only.
func TestBenchWritesItsBlockOfThePage(t *testing.T) {
	run := func(cpu, p95ms float64, reports bool) measurement {
		return measurement{ownCPU: cpu, tmuxCPU: 1, reports: reports,
			latency: map[string][]time.Duration{"BUSY": {time.Duration(p95ms * float64(time.Millisecond))}}}
	}
	saved := observers
	defer func() { observers = saved }()
	observers = []string{"control", "floor-poll"}
	d := &benchDoc{started: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), machine: "a CPU, 2 cores, Linux 6", tmux: "tmux 3.3a", paneherd: "paneherd 1.2.3", redraw: "agents"}
	d.add(scenario{name: "50 idle panes", window: 15 * time.Second}, 3, map[string][]measurement{
		"control":    {run(2, 120, true), run(1, 100, true), run(4, 300, true)},
		"floor-poll": {run(0.5, 0, false), run(0.25, 0, false), run(0.75, 0, false)},
	})
	got := d.render()
	for _, want := range []string{
		"Measured 2026-11-27 on a CPU, 2 cores, Linux 6; tmux 3.3a, paneherd 1.2.3",
		"**50 idle panes** (3 runs of 15s)",
		"| | control | floor-poll |",
		"| BUSY shown, p95 | 120 ms (100-300) | - |",
		"| total extra CPU | 3.00% (2.00-5.00) | 1.50% (1.25-1.75) |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the block lacks %q:\n%s", want, got)
		}
	}

	page := filepath.Join(t.TempDir(), "performance.md")
	b := benchBlock(page)
	os.WriteFile(page, []byte("# Performance\n\nprose\n"+b.Begin+"old figures\n"+b.End+"\nmore prose\n"), 0o644)
	if err := d.write(page); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(page)
	if want := "# Performance\n\nprose\n" + b.Begin + got + b.End + "\nmore prose\n"; string(written) != want {
		t.Errorf("the page after the write:\n%s\nwant:\n%s", written, want)
	}
	os.WriteFile(page, []byte("no block here\n"), 0o644)
	if err := d.write(page); err == nil || !strings.Contains(err.Error(), "put those two lines where it goes") {
		t.Errorf("a page without the block: %v; want an error that says what to do", err)
	}
}
