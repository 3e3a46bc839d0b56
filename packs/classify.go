package packs

import (
	"strings"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

// MaxSummary bounds a summary: it goes into a status bar and a notification.
const MaxSummary = 120

// Result is what one screen says.
type Result struct {
	State   state.State `json:"state"` // state.Unknown when no rule matched
	Pack    string      `json:"pack"`
	Rule    string      `json:"rule"`
	Summary string      `json:"summary"`
}

// view is a screen prepared for matching: the non-empty lines that are not ignored, and
// which of them is the input box.
type view struct {
	lines []screen.Line
	input int // index into lines, or -1
	fg    string
}

// Classify reads one screen with this pack. Every rule that matches is a candidate; the
// state with the highest precedence wins, and among rules of that state the first in the
// pack wins.
func (p *Pack) Classify(s screen.Screen) Result {
	v := p.prepare(s)
	best := Result{State: state.Unknown, Pack: p.Name}
	for i := range p.Rules {
		r := &p.Rules[i]
		if state.Precedence(r.State.State) <= state.Precedence(best.State) {
			continue
		}
		if summary, ok := r.apply(v); ok {
			best = Result{State: r.State.State, Pack: p.Name, Rule: r.Name, Summary: summary}
		}
	}
	return best
}

func (p *Pack) prepare(s screen.Screen) view {
	v := view{input: -1, fg: s.Foreground}
	for _, l := range s.Lines {
		if strings.TrimSpace(l.Text) == "" || p.Ignore.find(l.Text) != nil {
			continue
		}
		v.lines = append(v.lines, l)
	}
	if p.Input.Line == nil {
		return v
	}
	for i := len(v.lines) - 1; i >= 0 && i >= len(v.lines)-p.Input.Search; i-- {
		if p.Input.Line.MatchString(v.lines[i].Text) {
			v.input = i
			break
		}
	}
	return v
}

// region returns the lines a rule looks at.
func (v view) region(r Region) []screen.Line {
	switch r.Kind {
	case RegionScreen:
		return v.lines
	case RegionLast:
		return lastN(v.lines, r.Lines)
	}
	if v.input < 0 {
		return nil
	}
	switch r.Kind {
	case RegionAboveInput:
		return lastN(v.lines[:v.input], r.Lines)
	case RegionBelowInput:
		return v.lines[v.input+1:]
	}
	return v.lines[v.input : v.input+1]
}

func lastN(lines []screen.Line, n int) []screen.Line {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// apply reports whether the rule fires on the view, and its summary.
func (r *Rule) apply(v view) (string, bool) {
	if !r.processFits(v.fg) {
		return "", false
	}
	lines := r.region(v)
	hit := matchLine(lines, r.Match)
	if hit < 0 {
		return "", false
	}
	for _, req := range r.Require {
		if matchLine(lines, Patterns{req}) < 0 {
			return "", false
		}
	}
	if matchLine(lines, r.Unless) >= 0 {
		return "", false
	}
	return r.summarize(lines, hit), true
}

func (r *Rule) region(v view) []screen.Line { return v.region(r.Region) }

// processFits checks the rule's process conditions; an unknown process satisfies them, so
// a screen read from a file is judged by what it shows.
func (r *Rule) processFits(fg string) bool {
	if fg == "" {
		return true
	}
	if r.Process != nil && !r.Process.MatchString(fg) {
		return false
	}
	return r.NotProc == nil || !r.NotProc.MatchString(fg)
}

// matchLine returns the index of the lowest line any pattern matches, or -1: the bottom of
// a screen is its most recent part.
func matchLine(lines []screen.Line, ps Patterns) int {
	if len(ps) == 0 {
		return -1
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if ps.find(lines[i].Text) != nil {
			return i
		}
	}
	return -1
}

// summarize picks the words that tell a person what the rule saw.
func (r *Rule) summarize(lines []screen.Line, hit int) string {
	if r.Summary != nil {
		for i := len(lines) - 1; i >= 0; i-- {
			if s, ok := extract(r.Summary, lines[i].Text); ok {
				return clip(s)
			}
		}
	}
	return clip(lines[hit].Text)
}

// extract returns the match of p in s: its group named "summary", else its first group,
// else the whole match.
func extract(p *Pattern, s string) (string, bool) {
	m := p.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	if i := p.SubexpIndex("summary"); i > 0 {
		return m[i], true
	}
	if len(m) > 1 {
		return m[1], true
	}
	return m[0], true
}

// clip trims and shortens a summary, collapsing runs of blanks.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= MaxSummary {
		return s
	}
	r := []rune(s)
	return string(r[:MaxSummary-1]) + "…"
}

// InputText returns what a person has typed into the input box, and whether the pack found
// an input box at all. Faint text and placeholders do not count as typed.
func (p *Pack) InputText(s screen.Screen) (string, bool) {
	v := p.prepare(s)
	if v.input < 0 {
		return "", false
	}
	l := v.lines[v.input]
	m := p.Input.Line.FindStringSubmatchIndex(l.Text)
	if m == nil || len(m) < 4 || m[2] < 0 {
		return "", true
	}
	end := min(m[3], len(l.Typed)) // Typed is trimmed where faint text ended the line
	if m[2] >= end {
		return "", true
	}
	typed := strings.TrimSpace(l.Typed[m[2]:end])
	if typed == "" || p.Input.Placeholder.find(typed) != nil {
		return "", true
	}
	return typed, true
}
