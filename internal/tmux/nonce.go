package tmux

import (
	"crypto/rand"
	"encoding/hex"
)

// newNonce returns a random token for separators and markers in tmux
// output. Pane contents, window names, paths and titles are all under
// someone else's control; only a value they cannot guess splits them safely.
func newNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never returns an error since Go 1.24
	return hex.EncodeToString(b[:])
}
