package screen

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parser carries the SGR state across lines: capture-pane -e does not reset attributes at
// the end of each line, so faint text can continue onto the next row.
type parser struct {
	faint bool
}

func (p *parser) line(row string) Line {
	if !p.faint && plain(row) {
		t := strings.TrimRight(row, " ")
		return Line{Text: t, Typed: t}
	}
	return p.clean(row)
}

// clean reads a row rune by rune: escapes applied and removed, runes made printable.
func (p *parser) clean(row string) Line {
	var text, typed strings.Builder
	n := 0
	for i := 0; i < len(row) && n < MaxLineRunes; {
		if row[i] == 0x1b {
			i = p.escape(row, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(row[i:])
		i += size
		r = printable(r)
		if r < 0 {
			continue
		}
		text.WriteRune(r)
		if p.faint {
			// Blank byte for byte so offsets found in Text hold in Typed.
			typed.WriteString(strings.Repeat(" ", utf8.RuneLen(r)))
		} else {
			typed.WriteRune(r)
		}
		n++
	}
	return Line{
		Text:  strings.TrimRight(text.String(), " "),
		Typed: strings.TrimRight(typed.String(), " "),
	}
}

// plain reports whether a row needs no cleaning: no escapes or other controls, no tabs,
// no-break spaces or broken UTF-8, and at most MaxLineRunes runes. Most rows of a capture
// are so, and then the row is its own text: the watcher parses every changed screen, and
// building each line rune by rune was most of its work.
func plain(row string) bool {
	n := 0
	for i := 0; i < len(row); n++ {
		if c := row[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(row[i:])
		if printable(r) != r {
			return false
		}
		i += size
	}
	return n <= MaxLineRunes
}

// printable maps a rune to what a rule should see: tabs and no-break spaces (Claude Code
// puts U+00A0 after its ❯ prompt) become spaces, other controls and broken UTF-8 are
// dropped, so binary garbage in a pane can never upset a regex. It returns -1 to drop.
func printable(r rune) rune {
	switch {
	case r == '\t' || r == '\u00a0':
		return ' '
	case r == utf8.RuneError:
		return -1
	case unicode.IsControl(r):
		return -1
	}
	return r
}

// escape skips one escape sequence starting at row[i] (ESC) and returns the index after it,
// applying SGR sequences to the parser state.
func (p *parser) escape(row string, i int) int {
	if i+1 >= len(row) {
		return len(row)
	}
	switch row[i+1] {
	case '[':
		return p.csi(row, i+2)
	case ']', 'P', '_', '^':
		return skipString(row, i+2)
	}
	return i + 2
}

// csi skips a control sequence whose parameters start at j.
func (p *parser) csi(row string, j int) int {
	start := j
	for j < len(row) && (row[j] < 0x40 || row[j] > 0x7e) {
		j++
	}
	if j >= len(row) {
		return len(row)
	}
	if row[j] == 'm' {
		p.sgr(row[start:j])
	}
	return j + 1
}

// sgr applies the parameters of one SGR sequence. Only faint matters; extended colour
// parameters (38;5;n, 38;2;r;g;b) are skipped so their numbers are not read as attributes.
func (p *parser) sgr(params string) {
	if params == "" {
		p.faint = false
		return
	}
	fields := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	for k := 0; k < len(fields); k++ {
		n, _ := strconv.Atoi(fields[k])
		switch {
		case n == 0 || n == 22:
			p.faint = false
		case n == 2:
			p.faint = true
		case n == 38 || n == 48 || n == 58:
			k += colourArgs(fields[k+1:])
		}
	}
}

// colourArgs says how many parameters follow 38/48/58: "5;n" or "2;r;g;b".
func colourArgs(rest []string) int {
	if len(rest) == 0 {
		return 0
	}
	switch rest[0] {
	case "5":
		return 2
	case "2":
		return 4
	}
	return 1
}

// skipString skips an OSC/DCS/APC/PM body up to BEL or ST (ESC \).
func skipString(row string, j int) int {
	for ; j < len(row); j++ {
		if row[j] == 0x07 {
			return j + 1
		}
		if row[j] == 0x1b && j+1 < len(row) && row[j+1] == '\\' {
			return j + 2
		}
	}
	return len(row)
}
