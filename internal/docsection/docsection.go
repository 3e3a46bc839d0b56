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
	page, i, j, err := b.find()
	if err != nil {
		t.Fatal(err)
	}
	shown := page[i:j]
	if shown == want {
		return
	}
	if update {
		if err := b.write(page, i, j, want); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's block differs from the code's; run the command its first line names (%s)\nshown:\n%s\nthe code's:\n%s",
		b.Page, strings.TrimSpace(b.Begin), shown, want)
}

// Present says whether the page has the block, in an error that says what to do when not.
func (b Block) Present() error {
	_, _, _, err := b.find()
	return err
}

// Write puts want into the block, leaving the rest of the page as it is.
func (b Block) Write(want string) error {
	page, i, j, err := b.find()
	if err != nil {
		return err
	}
	return b.write(page, i, j, want)
}

// find reads the page, and where its block's text starts and ends.
func (b Block) find() (page string, i, j int, err error) {
	data, err := os.ReadFile(b.Page)
	if err != nil {
		return "", 0, 0, err
	}
	page = string(data)
	i, j = strings.Index(page, b.Begin), strings.Index(page, b.End)
	if i < 0 || j < i {
		return "", 0, 0, fmt.Errorf("%s has no block between %q and %q: put those two lines where it goes", b.Page, b.Begin, b.End)
	}
	return page, i + len(b.Begin), j, nil
}

// write replaces page[i:j], the block's text, with want: in a new file renamed over the
// page, so a failed write leaves the page as it was.
func (b Block) write(page string, i, j int, want string) error {
	tmp := b.Page + ".new"
	if err := os.WriteFile(tmp, []byte(page[:i]+want+page[j:]), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, b.Page)
}
