package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/termrec"
)

// The work folder's path goes from screens and writes, whole, cut short, or split
// between two writes; every row and every write keeps its size.
func TestScrubReplacesTheWorkFolder(t *testing.T) {
	root := "/tmp/labcal.mZaLul/work"
	rec := termrec.Recording{
		Start: termrec.Screen{Text: "│ /tmp/labcal.mZaLul/work/qwen │\nuser@devbox:/tmp/labcal.mZaLul/work/qwen# qwen\n"},
		End:   termrec.Screen{Text: "│ /tmp/labca │\n"},
		Writes: []termrec.Write{
			{Data: []byte("\x1b[39;3H/tmp/labcal.mZ")},
			{Data: []byte("aLul/work/opencode\x1b[39;112H")},
		}}
	sizes := []int{len(rec.Start.Text), len(rec.End.Text), len(rec.Writes[0].Data), len(rec.Writes[1].Data)}
	scrub(&rec, root)
	if leaks(rec) {
		t.Errorf("still names the path: %q %q %q", rec.Start.Text, rec.End.Text, rec.Bytes())
	}
	if !strings.Contains(rec.Start.Text, "/home/user/projects/app/qwen") || !strings.Contains(string(rec.Bytes()), "/home/user/projects/app/opencode") {
		t.Errorf("scrubbed to %q and %q", rec.Start.Text, rec.Bytes())
	}
	if got := []int{len(rec.Start.Text), len(rec.End.Text), len(rec.Writes[0].Data), len(rec.Writes[1].Data)}; !slices.Equal(got, sizes) {
		t.Errorf("sizes %v, want %v", got, sizes)
	}
}
