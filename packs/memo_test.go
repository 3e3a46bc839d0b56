package packs

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// The memo changes how fast a screen is read, never what it reads: every labelled
// fixture gives the same result from a pack without one, from a new memo, and again from
// a memo that has seen every fixture.
func TestMemoReadsAsWithout(t *testing.T) {
	set := builtinSet(t)
	fixtures := labelledFixtures(t)
	for round := 0; round < 2; round++ {
		for _, f := range fixtures {
			p := mustPack(t, set, f.pack)
			sc := readScreen(t, filepath.Join(fixturesDir, f.path))
			bare := *p
			bare.memo = nil
			if got, want := p.Classify(sc), bare.Classify(sc); got != want {
				t.Errorf("%s, round %d: with the memo %+v, without %+v", f.path, round, got, want)
			}
		}
	}
}

// The memo stays bounded however many different lines go by.
func TestMemoIsBounded(t *testing.T) {
	p := mustPack(t, builtinSet(t), "claude") // it has ignore patterns
	m := newLineMemo()
	for i := 0; i < 3*memoLines; i++ {
		m.find(p.Ignore, fmt.Sprintf("line %d", i))
		if len(m.lines) > memoLines {
			t.Fatalf("%d lines remembered, bound %d", len(m.lines), memoLines)
		}
	}
	if len(m.lines) == 0 {
		t.Fatal("nothing remembered")
	}
}

// Classify (the daemon's loop) and InputText (a delivery, on its own goroutine) read one
// pack at once; the memo must not be written by both. (Run with -race to see it all.)
func TestMemoWithConcurrentReaders(t *testing.T) {
	p := mustPack(t, builtinSet(t), "claude")
	sc := readScreen(t, filepath.Join(fixturesDir, "claude", "16-BUSY-thinking-before-first-token.txt"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			p.InputText(sc)
		}
	}()
	for i := 0; i < 2000; i++ {
		f := sc
		f.Lines = slices.Clone(sc.Lines)
		f.Lines[0].Text = fmt.Sprintf("line %d", i) // a new line each time: the memo grows
		p.Classify(f)
	}
	<-done
}
