// Package docsection keeps a block of a documentation page the one the code makes: a test
// names the page and the block's first and last lines, and hands over the text the code
// makes; the block must hold that text, or with -update it is rewritten to.
package docsection

import (
	"os"
	"strings"
	"testing"
)

// Block is the text of Page between the lines Begin and End (each with its newline).
type Block struct {
	Page, Begin, End string
}

// Check fails t when the block does not hold want; with update it writes want into the
// page instead.
func (b Block) Check(t testing.TB, want string, update bool) {
	t.Helper()
	data, err := os.ReadFile(b.Page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, b.Begin), strings.Index(text, b.End)
	if i < 0 || j < i {
		t.Fatalf("%s has no block between %q and %q", b.Page, b.Begin, b.End)
	}
	shown := text[i+len(b.Begin) : j]
	if shown == want {
		return
	}
	if update {
		if err := os.WriteFile(b.Page, []byte(text[:i+len(b.Begin)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's block differs from the code's; run the command its first line names (%s)\nshown:\n%s\nthe code's:\n%s",
		b.Page, strings.TrimSpace(b.Begin), shown, want)
}
