package contextuse

import (
	"path/filepath"
	"strings"
	"testing"
)

// A long line (a tool's whole output) is read, and its buffer is not kept after it: a
// file followed for days holds no more than keptLine between looks.
func TestTailDropsALongLinesBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	long := strings.Repeat("x", 3*keptLine)
	appendTo(t, path, []byte(long[:chunk+10])) // more than one read's chunk: the line is kept whole
	tail := Tail{Path: path}
	var lines []int
	read := func() {
		t.Helper()
		if err := tail.Read(func() {}, func(b []byte) { lines = append(lines, len(b)) }); err != nil {
			t.Fatal(err)
		}
	}
	read()
	appendTo(t, path, []byte(long[chunk+10:]+"\nshort\n"))
	read()
	if len(lines) != 2 || lines[0] != len(long) || lines[1] != len("short") {
		t.Fatalf("lines of %v bytes", lines)
	}
	if cap(tail.line) > keptLine {
		t.Errorf("a %d-byte buffer kept after the long line", cap(tail.line))
	}
}
