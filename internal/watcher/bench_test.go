package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// BenchmarkTick measures one watcher tick (list, capture every pane, classify, track,
// publish) on a real tmux server with N panes showing real captured screens. Besides
// wall time it reports CPU: this process plus the tmux clients it forks (cpu-ms/tick),
// and the tmux server's own CPU (server-ms/tick). At a 1 s tick, cpu-ms/tick divided by
// 10 is the percentage of one core.
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{10, 50} {
		b.Run(fmt.Sprintf("panes=%d", n), func(b *testing.B) { benchTick(b, n) })
	}
}

func benchTick(b *testing.B, n int) {
	h := tmuxtest.New(b)
	screens := fixtureScreens(b)
	for i := 0; i < n; i++ {
		cmd := fmt.Sprintf("head -c -1 '%s'; exec sleep 100000", screens[i%len(screens)])
		if i == 0 {
			h.NewSession("bench", cmd)
		} else {
			h.NewWindow("bench", fmt.Sprintf("w%d", i), cmd)
		}
	}
	st, err := store.Open(filepath.Join(b.TempDir(), "state.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	w := &Watcher{Packs: packs.Load(""), Store: st, Snapshot: filepath.Join(b.TempDir(), "snap.json"), Log: zerolog.Nop()}
	poll := observe.NewPoller(h.Server, time.Hour)
	ctx := context.Background()
	serverPID, _ := strconv.Atoi(h.Run("display-message", "-p", "#{pid}"))

	b.ResetTimer()
	cpu0, server0 := ownCPU(), processCPU(serverPID)
	for i := 0; i < b.N; i++ {
		poll.Wake() // look now, not at the next tick
		f, err := poll.Next(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Step(f); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	perTick := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(perTick(ownCPU()-cpu0), "cpu-ms/tick")
	b.ReportMetric(perTick(processCPU(serverPID)-server0), "server-ms/tick")
}

// fixtureScreens lists the captured screens under packs/testdata.
func fixtureScreens(b *testing.B) []string {
	files, _ := filepath.Glob("../../packs/testdata/fixtures/*/[0-9]*.ansi")
	if len(files) == 0 {
		b.Fatal("no fixtures found")
	}
	for i := range files {
		files[i], _ = filepath.Abs(files[i])
	}
	return files
}

// ownCPU is the user+system CPU of this process and its waited-for children.
func ownCPU() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

// processCPU is another process's user+system CPU from /proc/PID/stat.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}
