package termrec

import (
	"fmt"
	"strings"
)

// Draw returns what puts a terminal in the state s: on the alternate screen or off it,
// each row erased and drawn at its place (attributes reset first: a capture's escapes
// only change them), then the scroll region, the cursor and its visibility as they were,
// so that the writes recorded next land where they did. It clears row by row, as a CLI
// changing its screen does, never the whole screen at once.
func (s Screen) Draw() []byte {
	var b strings.Builder
	if s.Alternate {
		b.WriteString("\x1b[?1049h")
	} else {
		b.WriteString("\x1b[?1049l")
	}
	b.WriteString("\x1b[r")
	for i, row := range s.Lines() {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[m\x1b[2K%s", i+1, row)
	}
	fmt.Fprintf(&b, "\x1b[m\x1b[%d;%dr\x1b[%d;%dH", s.ScrollTop+1, s.ScrollBottom+1, s.CursorY+1, s.CursorX+1)
	if s.CursorHidden {
		b.WriteString("\x1b[?25l")
	} else {
		b.WriteString("\x1b[?25h")
	}
	return []byte(b.String())
}

// Lines is the screen's rows, with their escapes.
func (s Screen) Lines() []string {
	return strings.Split(strings.TrimSuffix(s.Text, "\n"), "\n")
}
