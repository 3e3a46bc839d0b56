package tmux

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// newNonce returns a random token for separators and markers in tmux
// output. Pane contents, window names, paths and titles are all under
// someone else's control; only a value they cannot guess splits them safely.
func newNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never returns an error since Go 1.24
	return hex.EncodeToString(b[:])
}

// Sanitised reports whether out, which lacks sep, holds sep with '_' for each \x1f: the
// separator as tmux 3.3a sanitises it for a client without UTF-8 (ErrSanitised).
func Sanitised(out, sep string) bool {
	return !strings.Contains(out, sep) && strings.Contains(out, strings.ReplaceAll(sep, "\x1f", "_"))
}
