package mcpserver

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// TestReadLineDropsALineOverTheLimit: a line longer than the limit is read to its end
// and dropped, and the next line reads whole.
func TestReadLineDropsALineOverTheLimit(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 100)+"\nshort\nlast"), 16)
	for _, want := range []struct {
		line    string
		tooLong bool
		err     error
	}{{"", true, nil}, {"short\n", false, nil}, {"last", false, io.EOF}} {
		line, tooLong, err := readLine(r, 40)
		if string(line) != want.line || tooLong != want.tooLong || err != want.err {
			t.Errorf("readLine = %q, %v, %v; want %q, %v, %v", line, tooLong, err, want.line, want.tooLong, want.err)
		}
	}
}
