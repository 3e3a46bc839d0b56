package packs

import (
	"hash/maphash"
	"strings"
	"time"
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
	// Hash fingerprints what the pack reads of the screen: its lines without blanks and
	// ignored footers, so a ticking footer clock does not count as the screen moving.
	Hash uint64 `json:"-"`
	// Match fingerprints, for a NEEDS_CONFIRMATION, the lines its rule matched, from the
	// highest to the lowest (a dialog's question down to its selected choice): two looks
	// at a dialog that agree on it show the same dialog, whatever else moved on screen.
	Match uint64 `json:"-"`
	// Clock is the text of the pack's clock (Pack.Clock), lowest match on screen; "": the
	// pack names none or none shows. The tracker compares it between looks.
	Clock string `json:"clock,omitempty"`
	// Context is the CLI's context figure on screen (Pack.Context.Screen).
	Context ScreenContext `json:"-"`
	// Settle is the winning READY rule's own settle time (Rule.Settle); 0: the pack's.
	Settle time.Duration `json:"-"`
	// Kind, Subject and Inexact say, for a NEEDS_CONFIRMATION whose rule names subjects,
	// what kind of thing the dialog asks about, the command, path or tool as shown, and
	// why that cannot be taken as exact ("": it can) (subject.go).
	Kind    string `json:"kind,omitempty"`
	Subject string `json:"subject,omitempty"`
	Inexact string `json:"inexact,omitempty"`
}

// view is a screen prepared for matching: the non-empty lines that are not ignored, and
// which of them is the input box.
type view struct {
	lines  []screen.Line
	input  int // index into lines, or -1
	cursor int // the line the cursor is on, when tmux showed it there; or -1
	fg     string
	width  int       // the pane's columns; 0: unknown
	typed  string    // typed into the input box; filled only for a pack that reads it
	memo   *lineMemo // the pack's; nil: none
}

// Classify reads one screen with this pack. Every rule that matches is a candidate; the
// state with the highest precedence wins, and among rules of that state the first in the
// pack wins. A dialog that is not the bottom-most interaction is history (present.go).
func (p *Pack) Classify(s screen.Screen) Result {
	if p.memo != nil {
		p.memo.mu.Lock()
		defer p.memo.mu.Unlock()
	}
	r := p.classify(p.prepare(s, p.memo), nil)
	r.Clock = p.clock(s, p.memo)
	r.Context = p.screenContext(s)
	return r
}

// clock returns the text of the lowest line the pack's clock matches, on the whole
// screen: a status line's clock sits in the footer, which Ignore usually drops.
func (p *Pack) clock(s screen.Screen, memo *lineMemo) string {
	if p.Clock == nil {
		return ""
	}
	for i := len(s.Lines) - 1; i >= 0; i-- {
		if !memo.match(p.Clock.Regexp, s.Lines[i].Text) {
			continue // the memo answers for lines seen before; only the hit is parsed
		}
		if m := p.Clock.FindStringSubmatch(s.Lines[i].Text); m != nil {
			if len(m) > 1 {
				return m[1]
			}
			return m[0]
		}
	}
	return ""
}

// classify decides; with ex it also records every rule's verdict (then no rule is
// skipped for being outranked, so each says whether it would have fired).
func (p *Pack) classify(v view, ex *Explanation) Result {
	best := Result{State: state.Unknown, Pack: p.Name}
	var won match
	for i := range p.Rules {
		r := &p.Rules[i]
		outranked := state.Precedence(r.State.State) <= state.Precedence(best.State)
		if outranked && ex == nil {
			continue
		}
		m, miss := r.apply(v)
		if miss == fired {
			if below, stale := p.stale(v, r, m.bottom); stale {
				ex.add(v, r, m, "stale: below it sits the "+below)
				continue
			}
		}
		if miss != fired || outranked {
			ex.add(v, r, m, verdict(miss, best))
			continue
		}
		best, won = Result{State: r.State.State, Pack: p.Name, Rule: r.Name, Summary: m.summary, Settle: r.Settle.Duration}, m
		ex.add(v, r, m, "won")
	}
	best.Hash = hashLines(v.lines)
	if best.State == state.NeedsConfirmation {
		// Only answering a dialog compares it between looks (deliver): no cost elsewhere.
		best.Match = hashLines(v.lines[won.top : won.bottom+1])
		best.Kind, best.Subject, best.Inexact = p.rule(best.Rule).subject(v, won)
	}
	return best
}

// hashLines fingerprints lines, to tell whether they moved; it lives only in this
// process (maphash: fast, and seeded per process).
func hashLines(lines []screen.Line) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, l := range lines {
		h.WriteString(l.Text)
		h.WriteByte('\n')
	}
	return h.Sum64()
}

var seed = maphash.MakeSeed()

// prepare makes the view; memo is the pack's, locked by the caller, or nil.
func (p *Pack) prepare(s screen.Screen, memo *lineMemo) view {
	v := view{input: -1, cursor: -1, fg: s.Foreground, width: s.Width, memo: memo}
	for row, l := range s.Lines {
		if strings.TrimSpace(l.Text) == "" || v.memo.find(p.Ignore, l.Text) != nil {
			continue
		}
		if row == s.CursorY {
			v.cursor = len(v.lines)
		}
		v.lines = append(v.lines, l)
	}
	if p.Input.Line != nil {
		p.findInput(&v)
	}
	if p.readsTyped {
		v.typed = p.typedText(v)
	}
	return v
}

// bounds returns the lines a region covers, as v.lines[lo:hi].
func (v view) bounds(r Region) (lo, hi int) {
	n := len(v.lines)
	switch r.Kind {
	case RegionScreen:
		return 0, n
	case RegionLast:
		return max(0, n-r.Lines), n
	}
	if v.input < 0 {
		return 0, 0
	}
	switch r.Kind {
	case RegionAboveInput:
		return max(0, v.input-r.Lines), v.input
	case RegionBelowInput:
		return v.input + 1, n
	}
	return v.input, v.input + 1
}

// span is where a rule looks: v.lines[lo:hi]; floor is where its summary search stops
// going up (the line after since's match, else 0).
type span struct{ lo, hi, floor int }

func (r *Rule) span(v view) span {
	lo, hi := v.bounds(r.Region)
	sp := span{lo: lo, hi: hi}
	if r.Since == nil {
		return sp
	}
	if i := v.matchLine(v.lines[:hi], Patterns{*r.Since}); i >= 0 {
		sp.floor = i + 1
		sp.lo = max(sp.lo, sp.floor)
	}
	return sp
}

// match is where a rule fired: the line its match pattern matched, the highest and the
// lowest line any of its patterns matched (a dialog's title, its last choice), and what
// it reports.
type match struct {
	hit, top, bottom int
	summary          string
}

// miss says why a rule did not fire; fired when it did.
type miss int

const (
	fired miss = iota
	missProcess
	missRegion // the region is empty: no input box for an input-anchored rule
	missMatch
	missRequire
	missUnless
	missUnlessBelow
	missUnlessTyped
)

// apply reports whether the rule fires on the view, where, and its summary.
func (r *Rule) apply(v view) (match, miss) {
	none := match{hit: -1, top: -1, bottom: -1}
	if !r.processFits(v.fg) {
		return none, missProcess
	}
	sp := r.span(v)
	if sp.lo >= sp.hi {
		return none, missRegion
	}
	lines := v.lines[sp.lo:sp.hi]
	hit := v.matchLine(lines, r.Match)
	if hit < 0 {
		return none, missMatch
	}
	m := match{hit: sp.lo + hit, top: sp.lo + hit, bottom: sp.lo + hit}
	for _, req := range r.Require {
		i := v.matchLine(lines, Patterns{req})
		if i < 0 {
			return none, missRequire
		}
		m.top, m.bottom = min(m.top, sp.lo+i), max(m.bottom, sp.lo+i)
	}
	if v.matchLine(lines, r.Unless) >= 0 {
		return none, missUnless
	}
	if v.matchLine(lines[hit+1:], r.UnlessBelow) >= 0 {
		return none, missUnlessBelow
	}
	if v.memo.find(r.UnlessTyped, v.typed) != nil {
		return none, missUnlessTyped
	}
	m.summary = r.summarize(v, sp, m.hit)
	return m, fired
}

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
func (v view) matchLine(lines []screen.Line, ps Patterns) int {
	if len(ps) == 0 {
		return -1
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if v.memo.find(ps, lines[i].Text) != nil {
			return i
		}
	}
	return -1
}

// summarize picks the words that tell a person what the rule saw: the summary pattern in
// the region from the bottom up, then above the region down to the floor (a dialog's
// title sits above its question; a stack trace's message above its last frame), else the
// line that matched.
func (r *Rule) summarize(v view, sp span, hit int) string {
	if r.Summary == nil {
		return clip(v.lines[hit].Text)
	}
	if strings.Contains(r.Summary.String(), `\n`) {
		if s, ok := extractLast(r.Summary, screen.Join(v.lines[sp.floor:sp.hi])); ok {
			return clip(s)
		}
		return clip(v.lines[hit].Text)
	}
	for _, part := range [][]screen.Line{v.lines[sp.lo:sp.hi], v.lines[sp.floor:sp.lo]} {
		for i := len(part) - 1; i >= 0; i-- {
			if s, ok := extract(r.Summary, part[i].Text); ok {
				return clip(s)
			}
		}
	}
	return clip(v.lines[hit].Text)
}

// extractLast is extract for a pattern that spans lines: its last match counts.
func extractLast(p *Pattern, s string) (string, bool) {
	all := p.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return "", false
	}
	return group(p, all[len(all)-1]), true
}

// extract returns the match of p in s: its group named "summary", else its first group,
// else the whole match.
func extract(p *Pattern, s string) (string, bool) {
	m := p.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return group(p, m), true
}

// group picks from a match its group named "summary" (the first that took part, when
// alternatives each name one), else its first group, else the whole match.
func group(p *Pattern, m []string) string {
	if i := p.SubexpIndex("summary"); i > 0 {
		for j, name := range p.SubexpNames() {
			if name == "summary" && m[j] != "" {
				return m[j]
			}
		}
		return m[i]
	}
	if len(m) > 1 {
		return m[1]
	}
	return m[0]
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
	v := p.prepare(s, nil) // no memo: it runs beside the daemon's Classify, and rarely
	return p.typedText(v), v.input >= 0
}

// typedText returns what a person has typed into the view's input box; "" when there is
// no box or only a placeholder in it.
func (p *Pack) typedText(v view) string {
	if v.input < 0 {
		return ""
	}
	l := v.lines[v.input]
	m := p.Input.Line.FindStringSubmatchIndex(l.Text)
	if m == nil || len(m) < 4 || m[2] < 0 {
		return ""
	}
	end := min(m[3], len(l.Typed)) // Typed is trimmed where faint text ended the line
	if m[2] >= end {
		return ""
	}
	typed := strings.TrimSpace(l.Typed[m[2]:end])
	// The shown text is checked too: a cursor drawn in reverse video over a faint
	// placeholder's first letter leaves that letter looking typed (Claude Code draws
	// "Press up to edit queued messages" so).
	shown := strings.TrimSpace(l.Text[m[2]:m[3]])
	if typed == "" || p.Input.Placeholder.find(typed) != nil || p.Input.Placeholder.find(shown) != nil {
		return ""
	}
	return typed
}
