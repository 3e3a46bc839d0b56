package main

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

// workCounts are the daemon's paneherd_work_total series ("kind name" -> count), read
// with `paneherd metrics`: what it made tmux and the disk do.
type workCounts map[string]float64

// readWork reads the daemon's work counts; empty when it cannot.
func (h harness) readWork(ctx context.Context, w *world) workCounts {
	c := exec.CommandContext(ctx, h.paneherd, "-S", w.server.Socket, "metrics")
	c.Env = w.env
	out, err := c.Output()
	counts := workCounts{}
	if err != nil {
		return counts
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "paneherd_work_total{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		n, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		counts[workName(labels)] = n
	}
	return counts
}

// workName is "kind name" of a series' labels (kind="tmux_command",name="capture-pane").
func workName(labels string) string {
	var kind, name string
	for _, pair := range strings.Split(labels, ",") {
		k, v, _ := strings.Cut(pair, "=")
		v = strings.Trim(v, `"`)
		switch k {
		case "kind":
			kind = v
		case "name":
			name = v
		}
	}
	return strings.TrimSpace(kind + " " + name)
}

// rates is each count's increase per second from before to after.
func rates(before, after workCounts, over time.Duration) workCounts {
	r := workCounts{}
	for k, v := range after {
		r[k] = (v - before[k]) / over.Seconds()
	}
	return r
}

// String lists the rates, largest first, those under 0.05/s left out.
func (r workCounts) String() string {
	keys := make([]string, 0, len(r))
	for k, v := range r {
		if v >= 0.05 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return r[keys[i]] > r[keys[j]] })
	var parts []string
	for _, k := range keys {
		unit := "/s"
		if strings.HasPrefix(k, "tmux_output_bytes") {
			unit = " B/s"
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%s", k, r[k], unit))
	}
	return strings.Join(parts, ", ")
}
