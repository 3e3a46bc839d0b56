package packs

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

// BenchmarkClassify measures one screen's classification with its pack, averaged over every
// labelled fixture (plain and with escapes), each as new: the pack's memo of lines is
// emptied first. Parsing is done before the clock starts.
func BenchmarkClassify(b *testing.B) {
	set := builtinSet(b)
	type job struct {
		pack *Pack
		sc   screen.Screen
	}
	var jobs []job
	for _, f := range labelledFixtures(b) {
		jobs = append(jobs, job{mustPack(b, set, f.pack), readScreen(b, filepath.Join(fixturesDir, f.path))})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		j := jobs[i%len(jobs)]
		clear(j.pack.memo.lines)
		j.pack.Classify(j.sc)
	}
}

// BenchmarkClassifyBusyFrames measures what a busy agent costs between two looks: the
// same screen with a new spinner line each frame ("✽ Flummoxing… (12s · ↓ 340 tokens)"),
// as Claude Code redraws it, so no frame is the one before.
func BenchmarkClassifyBusyFrames(b *testing.B) {
	p := mustPack(b, builtinSet(b), "claude")
	sc := readScreen(b, filepath.Join(fixturesDir, "claude", "16-BUSY-thinking-before-first-token.txt"))
	spinner := -1
	for i, l := range sc.Lines {
		if strings.HasPrefix(l.Text, "✽ Flummoxing…") {
			spinner = i
		}
	}
	if spinner < 0 {
		b.Fatal("the fixture has no spinner line")
	}
	f := sc
	f.Lines = slices.Clone(sc.Lines)
	frame := func(i int) screen.Screen {
		f.Lines[spinner].Text = fmt.Sprintf("✽ Flummoxing… (%ds · ↓ %d tokens)", i/10, i)
		return f
	}
	if got := p.Classify(frame(0)).State; got != state.Busy {
		b.Fatalf("a frame reads %s, want BUSY", got)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 1; b.Loop(); i++ {
		p.Classify(frame(i))
	}
}
