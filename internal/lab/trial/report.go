package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// renderReport is the markdown section for docs/performance.md: one row per agent, then
// what each got wrong most.
func renderReport(label string, results []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Live trial: %s\n\n", label)
	b.WriteString("| agent | session | samples | right | right or within the target latency | right, >1 s after an action |")
	for _, t := range targets {
		fmt.Fprintf(&b, " to %s p50 / p95 (n) |", short(t))
	}
	b.WriteString(" false READY: samples (longest run), >1 s after an action |\n|---|---|---|---|---|---|")
	b.WriteString(strings.Repeat("---|", len(targets)) + "---|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |", r.agent, r.duration.Round(time.Second),
			r.samples, pct(r.agree, r.samples), pct(r.inTime, r.samples), pct(r.calmAgree, r.calm))
		for _, t := range targets {
			b.WriteString(" " + latencyCell(r, t) + " |")
		}
		fmt.Fprintf(&b, " %d (%s), %d |\n", r.falseReady, seconds(r.longestFalseReady), r.falseReadyCalm)
	}
	b.WriteString("\nWrong samples by true<-shown state (the most frequent first):\n\n")
	for _, r := range results {
		fmt.Fprintf(&b, "- %s (%s at its end): %s\n", r.agent, r.load, topWrong(r.wrong, 5))
		for _, n := range r.notes {
			fmt.Fprintf(&b, "  - note: %s\n", n)
		}
	}
	return b.String()
}

func latencyCell(r result, state string) string {
	ds := r.latency[state]
	cell := "-"
	if len(ds) > 0 {
		cell = fmt.Sprintf("%s / %s (%d)", seconds(percentile(ds, 50)), seconds(percentile(ds, 95)), len(ds))
	}
	if m := r.missed[state]; m > 0 {
		cell += fmt.Sprintf(", %d never", m)
	}
	return cell
}

func short(state string) string {
	switch state {
	case "NEEDS_CONFIRMATION":
		return "NEEDS_CONF"
	case "READY":
		return "READY at a turn's end"
	}
	return state
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(of))
}

func topWrong(wrong map[string]int, n int) string {
	keys := make([]string, 0, len(wrong))
	for k := range wrong {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if wrong[keys[i]] != wrong[keys[j]] {
			return wrong[keys[i]] > wrong[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, wrong[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute figures, and the CPUs there are.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return fmt.Sprintf("load average %s %s %s", f[0], f[1], f[2])
}
