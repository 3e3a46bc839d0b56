// Package deliver puts text and keys into panes for people and orchestrators, safely: a
// prompt is sanitised, pasted from a named buffer as one bracketed paste, submitted with a
// separate key after a pause, and acknowledged; never typed over a person's draft or
// while a person is at the keyboard; a dialog is answered only when a fresh look at the
// screen shows a known one. Every action is audited.
package deliver

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/paneherd/paneherd/statusline"
)

// MaxPayload bounds a prompt: far above any prompt a person writes, far below what
// would flood a CLI's input.
const MaxPayload = 64 << 10

var (
	// ErrEmpty is returned by Sanitize when nothing printable is left.
	ErrEmpty = errors.New("the prompt is empty (after removing control characters)")
	// ErrTooLong is returned by Sanitize when the prompt exceeds MaxPayload.
	ErrTooLong = fmt.Errorf("the prompt is longer than %d bytes; send a file path to the agent instead", MaxPayload)
)

// Sanitize keeps what a prompt may hold: printable text, newlines and tabs. Every other
// C0 control, ESC above all, DEL and C1 controls are dropped: an embedded ESC[201~ would
// end the bracketed paste early and let what follows act as live keys (a Ctrl-C, an
// Enter). Invisible characters (statusline.Invisible: bidi controls, zero-width ones) are
// dropped too: the person reading the prompt in the pane would not see what the agent
// reads. CRLF and lone CR become LF; invalid UTF-8 is dropped; trailing newlines go, as
// the submit key ends the prompt.
func Sanitize(s string) (string, error) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || statusline.Invisible(r):
		default:
			b.WriteRune(r)
		}
	}
	out := strings.TrimRight(b.String(), "\n")
	switch {
	case strings.TrimSpace(out) == "":
		return "", ErrEmpty
	case len(out) > MaxPayload:
		return "", ErrTooLong
	}
	return out, nil
}
