package packs

import (
	"path/filepath"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
)

// BenchmarkClassify measures one screen's classification with its pack, averaged over every
// labelled fixture (plain and with escapes); parsing is done before the clock starts.
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
		j.pack.Classify(j.sc)
	}
}
