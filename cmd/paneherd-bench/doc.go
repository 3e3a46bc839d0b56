package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/docsection"
)

// benchDoc gathers what a bench measured, for the block of docs/performance.md it writes
// (-write): the only place those figures live.
type benchDoc struct {
	started  time.Time
	machine  string // CPU, cores, kernel
	tmux     string // tmux -V
	paneherd string // the binary's version
	redraw   string
	scenes   []scene
	status   time.Duration // status --short per call; 0: not measured
}

// scene is one scenario's runs per observer.
type scene struct {
	name      string
	runs      int
	window    time.Duration
	observers []string
	results   map[string][]measurement
}

// benchBlock is the block of docs/performance.md the bench writes.
func benchBlock(page string) docsection.Block {
	return docsection.Block{
		Page:  page,
		Begin: "<!-- bench: written by make bench (cmd/paneherd-bench -write); edit the code, not this block -->\n",
		End:   "<!-- bench: end -->\n",
	}
}

// newBenchDoc notes the machine and the versions under test.
func newBenchDoc(ctx context.Context, paneherd, redraw string) *benchDoc {
	d := &benchDoc{started: time.Now(), machine: machine(), redraw: redraw}
	d.tmux = firstLine(ctx, "tmux", "-V")
	d.paneherd = firstLine(ctx, paneherd, "version")
	return d
}

// firstLine is the first line a command prints, or what went wrong.
func firstLine(ctx context.Context, name string, args ...string) string {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return fmt.Sprintf("%s: %v", name, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// machine says what the figures were measured on: the CPU's model, the cores Go sees and
// the kernel.
func machine() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := "unknown kernel"
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s, %d cores, %s", model, runtime.NumCPU(), kernel)
}

// add records one scenario's runs.
func (d *benchDoc) add(sc scenario, runs int, results map[string][]measurement) {
	d.scenes = append(d.scenes, scene{name: sc.name, runs: runs, window: sc.window,
		observers: slices.Clone(observers), results: results})
}

// write puts the figures into page's bench block.
func (d *benchDoc) write(page string) error {
	return benchBlock(page).Write(d.render())
}

// render is the block: when and on what, then a table per scenario whose cells are the
// median over the runs with the smallest and largest run.
func (d *benchDoc) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s; %s, %s; players `-redraw %s`.\n",
		d.started.UTC().Format("2006-01-02"), d.machine, d.tmux, d.paneherd, d.redraw)
	b.WriteString("Each cell: the median over the runs (the lowest and highest run in brackets); ")
	b.WriteString("latencies from a screen's change to the snapshot showing it; ")
	b.WriteString("CPU in % of one core, the watcher's processes and the tmux server's extra work together.\n")
	for _, s := range d.scenes {
		fmt.Fprintf(&b, "\n**%s** (%d runs of %s)\n\n", s.name, s.runs, s.window)
		b.WriteString("| |")
		for _, o := range s.observers {
			fmt.Fprintf(&b, " %s |", o)
		}
		b.WriteString("\n|---|")
		b.WriteString(strings.Repeat("---|", len(s.observers)))
		b.WriteString("\n")
		for _, r := range docRows {
			fmt.Fprintf(&b, "| %s |", r.label)
			for _, o := range s.observers {
				fmt.Fprintf(&b, " %s |", r.cell(s.results[o]))
			}
			b.WriteString("\n")
		}
	}
	if d.status > 0 {
		fmt.Fprintf(&b, "\n`status --short` against a daemon watching 50 panes: %.1f ms a call, process start included.\n", ms(d.status))
	}
	return b.String()
}

// docRow is one figure of the tables: how to read it from a run, and whether the watcher
// must write paneherd's snapshot for it (latencies and agreement: not the floors and the
// peer).
type docRow struct {
	label    string
	value    func(measurement) float64
	unit     string
	reported bool
	// measured: the run has the figure (a latency needs changes to that state); nil: always.
	measured func(measurement) bool
}

var docRows = []docRow{
	latencyRow("BUSY", 0.95),
	latencyRow("NEEDS_CONFIRMATION", 0.95),
	latencyRow("ERROR", 0.95),
	latencyRow("READY", 0.5),
	latencyRow("READY", 0.95),
	latencyRow(readySettled, 0.95),
	{label: "reported = true state", value: func(m measurement) float64 { return m.agreement.percent() }, unit: "%", reported: true},
	{label: "of the rest, READY within its settle time", value: func(m measurement) float64 { return m.agreement.settlingShare() }, unit: "%", reported: true},
	{label: "total extra CPU", value: func(m measurement) float64 { return m.watcherCPU() + m.tmuxCPU }, unit: "%"},
	{label: "of which the watcher and its tmux clients", value: func(m measurement) float64 { return m.watcherCPU() }, unit: "%"},
	{label: "of which the tmux server", value: func(m measurement) float64 { return m.tmuxCPU }, unit: "%"},
	{label: "watcher RSS", value: func(m measurement) float64 { return m.rssMB }, unit: " MB"},
}

func latencyRow(state string, p float64) docRow {
	label := fmt.Sprintf("%s shown, p%d", state, int(p*100))
	if state == readySettled {
		label = fmt.Sprintf("READY shown past its settle time, p%d", int(p*100))
	}
	return docRow{
		label:    label,
		value:    func(m measurement) float64 { return ms(percentile(m.latency[state], p)) },
		unit:     " ms",
		reported: true,
		measured: func(m measurement) bool { return len(m.latency[state]) > 0 },
	}
}

// cell is the row's median over the runs that have it, with the lowest and highest; "-"
// where the watcher does not report it or no run has it.
func (r docRow) cell(runs []measurement) string {
	if len(runs) == 0 || (r.reported && !runs[0].reports) {
		return "-"
	}
	var v []float64
	for _, m := range runs {
		if r.measured == nil || r.measured(m) {
			v = append(v, r.value(m))
		}
	}
	if len(v) == 0 {
		return "-" // no run had the figure: an idle scenario's latencies
	}
	slices.Sort(v)
	mid := r.number(v[len(v)/2]) + r.unit
	if len(v) == 1 {
		return mid
	}
	return fmt.Sprintf("%s (%s-%s)", mid, r.number(v[0]), r.number(v[len(v)-1]))
}

// number is a figure as the tables show it: percentages to two places, milliseconds and
// megabytes whole.
func (r docRow) number(v float64) string {
	if r.unit == "%" {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
