package main

import (
	"bytes"
	"strings"

	"github.com/paneherd/paneherd/internal/termrec"
)

// neutralRoot stands for the run's work folder in what is kept: a recording must not name
// a path of the machine it was made on. It is cut or padded to the folder's length, so
// that every row keeps its width and every write its size.
const neutralRoot = "/home/user/projects/app/work"

// scrub replaces the work folder's path in the recording's screens and writes, whole or
// cut short at its end (as a CLI cuts a long path to fit its box), by the neutral one.
func scrub(rec *termrec.Recording, root string) {
	r := strings.NewReplacer(pairs(root)...)
	rec.Start.Text, rec.End.Text = r.Replace(rec.Start.Text), r.Replace(rec.End.Text)
	// A path may straddle two writes: replaced in the whole stream, then cut back at the
	// same places (the sizes do not change).
	all := []byte(r.Replace(string(rec.Bytes())))
	for i := range rec.Writes {
		n := len(rec.Writes[i].Data)
		rec.Writes[i].Data, all = all[:n:n], all[n:]
	}
}

// pairs are the replacements, longest first: the path and each of its heads down to
// "/tmp/x", each by the neutral path's head of the same length.
func pairs(root string) []string {
	neutral := neutralRoot + strings.Repeat("x", max(0, len(root)-len(neutralRoot)))
	var out []string
	for n := len(root); n >= min(len(root), 6); n-- {
		out = append(out, root[:n], neutral[:n])
	}
	return out
}

// leaks says whether the recording still names a temporary path.
func leaks(rec termrec.Recording) bool {
	tmp := []byte("/tmp/")
	return bytes.Contains(rec.Bytes(), tmp) || strings.Contains(rec.Start.Text, "/tmp/") || strings.Contains(rec.End.Text, "/tmp/")
}
