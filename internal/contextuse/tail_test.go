package contextuse

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A file truncated and written again between two looks, past where the last look stopped,
// is read from its start: the last look's offset falls mid-line in the new content.
func TestTailRewrittenPastTheOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, []byte("first line\nsecond\n"))
	tail := Tail{Path: path}
	var lines []string
	restarts := 0
	read := func() {
		t.Helper()
		if err := tail.Read(func() { restarts++; lines = nil }, func(b []byte) { lines = append(lines, string(b)) }); err != nil {
			t.Fatal(err)
		}
	}
	read()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, []byte("another conversation\nits next line\n"))
	read()
	if restarts != 2 || strings.Join(lines, "|") != "another conversation|its next line" {
		t.Errorf("after the rewrite: %d restarts, lines %q; want 2, the new file's lines", restarts, lines)
	}
	appendTo(t, path, []byte("more\n"))
	read()
	if restarts != 2 || lines[len(lines)-1] != "more" {
		t.Errorf("an append read as a rewrite: %d restarts, lines %q", restarts, lines)
	}
}

// Only a regular file is read: a FIFO named as a transcript is not opened (its open would
// wait for a writer), nor a directory.
func TestTailReadsRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, dir} {
		done := make(chan error, 1)
		go func() { done <- (&Tail{Path: path}).Read(func() {}, func([]byte) {}) }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s read without an error", filepath.Base(path))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Read still waiting after 10 s", filepath.Base(path))
		}
	}
}
