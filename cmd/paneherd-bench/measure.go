package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuOf is a process's user+system CPU so far, from /proc/PID/stat.
func cpuOf(pid int) time.Duration {
	f := statFields(pid)
	if len(f) < 15 {
		return 0
	}
	return ticks(f[11]) + ticks(f[12])
}

// childrenCPU is the CPU of a process's children: those it has waited for (the tmux
// clients the polling daemon starts), and those still running (control-mode clients).
func childrenCPU(pid int) time.Duration {
	f := statFields(pid)
	if len(f) < 15 {
		return 0
	}
	total := ticks(f[13]) + ticks(f[14])
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		var child int
		fmt.Sscan(filepath.Base(filepath.Dir(s)), &child)
		if cf := statFields(child); len(cf) > 2 && cf[1] == strconv.Itoa(pid) {
			total += cpuOf(child)
		}
	}
	return total
}

func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

func ticks(s string) time.Duration {
	n, _ := strconv.Atoi(s)
	return time.Duration(n) * time.Second / 100 // USER_HZ
}

func perSecond(cpu, over time.Duration) float64 {
	return 100 * cpu.Seconds() / over.Seconds()
}

// rssOf is a process's resident memory in MB.
func rssOf(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	return 0
}

// report prints the medians of each observer's runs side by side.
func report(results map[string][]measurement) {
	fmt.Printf("%-34s", "")
	for _, obs := range observers {
		fmt.Printf(" %14s", obs)
	}
	fmt.Println()
	row := func(label string, f func(measurement) float64, unit string) {
		fmt.Printf("%-34s", label)
		for _, obs := range observers {
			fmt.Printf(" %12.2f%-2s", median(results[obs], f), unit)
		}
		fmt.Println()
	}
	for _, st := range []string{"BUSY", "NEEDS_CONFIRMATION", "ERROR", "READY", readySettled} {
		row("latency "+st+" p50", func(m measurement) float64 { return ms(percentile(m.latency[st], 0.5)) }, "ms")
		row("latency "+st+" p95", func(m measurement) float64 { return ms(percentile(m.latency[st], 0.95)) }, "ms")
	}
	row("reported = true state", func(m measurement) float64 { return m.agreement.percent() }, "%")
	row("watcher process CPU", func(m measurement) float64 { return m.ownCPU }, "%")
	row("its tmux clients CPU", func(m measurement) float64 { return m.clientsCPU }, "%")
	row("tmux server extra CPU", func(m measurement) float64 { return m.tmuxCPU }, "%")
	row("total extra CPU (of one core)", func(m measurement) float64 { return m.watcherCPU() + m.tmuxCPU }, "%")
	row("daemon RSS", func(m measurement) float64 { return m.rssMB }, "MB")
	for _, obs := range observers {
		if runs := results[obs]; len(runs) > 0 && runs[0].reports {
			mid := medianRun(runs)
			fmt.Printf("%-34s %s: %s\n", "  disagreement (median run)", obs, mid.agreement.breakdown())
			fmt.Printf("%-34s %s: %s\n", "  work done (median run)", obs, mid.work)
		}
	}
	row("latency samples (median run)", func(m measurement) float64 {
		n := 0
		for st, s := range m.latency {
			if st != readySettled { // the READY samples again
				n += len(s)
			}
		}
		return float64(n)
	}, "")
}

// medianRun is the run whose agreement is the median.
func medianRun(runs []measurement) measurement {
	s := append([]measurement(nil), runs...)
	sort.Slice(s, func(i, j int) bool { return s[i].agreement.percent() < s[j].agreement.percent() })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ms []measurement, f func(measurement) float64) float64 {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	sort.Float64s(v)
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}

// statusSpeed times `paneherd status --short` against a daemon watching 50 panes.
func (h harness) statusSpeed(ctx context.Context) error {
	w, err := h.start(ctx, scenario{name: "status", idle: 50, sessions: 5})
	if err != nil {
		return err
	}
	defer w.stop()
	daemon := exec.CommandContext(ctx, h.paneherd, "-S", w.server.Socket, "watch")
	daemon.Env = w.env
	if err := daemon.Start(); err != nil {
		return err
	}
	defer func() { daemon.Process.Signal(syscall.SIGTERM); daemon.Wait() }()
	sleep(ctx, 2*time.Second)
	const calls = 200
	start := time.Now()
	for i := 0; i < calls; i++ {
		c := exec.CommandContext(ctx, h.paneherd, "-S", w.server.Socket, "status", "--short")
		c.Env = w.env
		if out, err := c.Output(); err != nil || len(out) == 0 {
			return fmt.Errorf("status --short: %v", err)
		}
	}
	h.doc.status = time.Since(start) / calls
	fmt.Printf("\n== status --short: %.2f ms per call (mean of %d, process start included)\n", ms(h.doc.status), calls)
	return nil
}
