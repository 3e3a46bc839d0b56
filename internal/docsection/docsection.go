// Package docsection keeps a block of a documentation page the one the code makes: the
// page and the block's first and last lines are named, and the code hands over the text
// it makes. A test checks the block holds it (or with -update rewrites it); a command that
// measures something writes its figures into it (Write).
package docsection

import (
	"fmt"
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
	text, shown, err := b.read()
	if err != nil {
		t.Fatal(err)
	}
	if shown == want {
		return
	}
	if update {
		if err := b.write(text, want); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's block differs from the code's; run the command its first line names (%s)\nshown:\n%s\nthe code's:\n%s",
		b.Page, strings.TrimSpace(b.Begin), shown, want)
}

// Write puts want into the block, leaving the rest of the page as it is.
func (b Block) Write(want string) error {
	text, _, err := b.read()
	if err != nil {
		return err
	}
	return b.write(text, want)
}

// read returns the page and what its block holds now.
func (b Block) read() (page, shown string, err error) {
	data, err := os.ReadFile(b.Page)
	if err != nil {
		return "", "", err
	}
	page = string(data)
	i, j := strings.Index(page, b.Begin), strings.Index(page, b.End)
	if i < 0 || j < i {
		return "", "", fmt.Errorf("%s has no block between %q and %q: put those two lines where it goes", b.Page, b.Begin, b.End)
	}
	return page, page[i+len(b.Begin) : j], nil
}

// write replaces the block of page, as read, with want.
func (b Block) write(page, want string) error {
	i, j := strings.Index(page, b.Begin), strings.Index(page, b.End)
	return os.WriteFile(b.Page, []byte(page[:i+len(b.Begin)]+want+page[j:]), 0o644)
}
