package packs

import (
	"regexp"
	"strings"
	"sync"
)

// A screen changes a few lines at a time (a spinner, a timer, a new line of transcript),
// and a busy agent is classified several times a second. lineMemo remembers what each
// pattern said of each line, so a new frame costs the regular expressions of its new
// lines only. A line and a pattern always give the same answer: the memo never goes
// stale, it only grows, and is bounded by memoLines.
type lineMemo struct {
	mu    sync.Mutex // held for a whole classification
	lines map[string]*lineFacts
}

// lineFacts are the patterns tried on one line, and whether each matched.
type lineFacts struct{ answers []answer }

type answer struct {
	re  *regexp.Regexp
	hit bool
}

// memoLines bounds the memo; once full it starts again empty. Fifty panes of forty lines
// fit twice over; a line with all its answers is a few hundred bytes.
const memoLines = 4096

func newLineMemo() *lineMemo { return &lineMemo{lines: map[string]*lineFacts{}} }

// match is re.MatchString(line), remembered; a nil memo just matches. Called with mu
// held (Classify holds it).
func (m *lineMemo) match(re *regexp.Regexp, line string) bool {
	if m == nil {
		return re.MatchString(line)
	}
	f := m.lines[line]
	if f == nil {
		if len(m.lines) >= memoLines {
			clear(m.lines)
		}
		f = &lineFacts{answers: make([]answer, 0, 8)}
		// A copy: the line is a slice of a whole capture, which the key would keep alive.
		m.lines[strings.Clone(line)] = f
	}
	for _, a := range f.answers {
		if a.re == re {
			return a.hit
		}
	}
	hit := re.MatchString(line)
	f.answers = append(f.answers, answer{re, hit})
	return hit
}

// find returns the first of ps that matches line, or nil; through the memo unless nil.
func (m *lineMemo) find(ps Patterns, line string) *Pattern {
	for i := range ps {
		if m.match(ps[i].Regexp, line) {
			return &ps[i]
		}
	}
	return nil
}
