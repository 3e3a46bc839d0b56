// Package screen turns a captured pane (`capture-pane -p`, with or without -e) into
// plain lines that pack rules can match, keeping the one attribute rules need: which
// characters were drawn faint, because CLIs draw hint and placeholder text faint and
// that text was not typed by anyone.
package screen

import "strings"

// Limits keep a pathological capture (a pane full of binary garbage, a huge scrollback)
// cheap to classify: the state of a pane is decided by its bottom, never its top.
const (
	MaxLines     = 1000
	MaxLineRunes = 2000
)

// Line is one row of the screen.
type Line struct {
	Text  string // what is shown, escapes removed, trailing blanks trimmed
	Typed string // Text with faint runs blanked byte for byte: what could have been typed
}

// Screen is one capture of a pane.
type Screen struct {
	Lines []Line
	// CursorY is the cursor's row counted from the top of the capture, or -1 when unknown
	// (a screen read from a file) or hidden.
	CursorY int
	// Foreground is the pane's pane_current_command, or "" when unknown.
	Foreground string
	// Width is the pane's width in columns (pane_width), or 0 when unknown: a line that
	// reaches it may go on in the next row or out of view.
	Width int
}

// Parse reads a capture. Escape sequences are removed; SGR faint (2) is tracked.
func Parse(raw string) Screen {
	rows := strings.Split(strings.TrimRight(raw, "\n"), "\n")
	if len(rows) > MaxLines {
		rows = rows[len(rows)-MaxLines:]
	}
	s := Screen{Lines: make([]Line, 0, len(rows)), CursorY: -1}
	var p parser
	for _, row := range rows {
		s.Lines = append(s.Lines, p.line(row))
	}
	return s
}

// Text returns the screen's lines joined by newlines, as shown.
func (s Screen) Text() string { return Join(s.Lines) }

// Join returns the lines' text joined by newlines.
func Join(lines []Line) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.Text)
	}
	return b.String()
}
