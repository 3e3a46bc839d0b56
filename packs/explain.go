package packs

import (
	"fmt"
	"io"
	"strings"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

// Explanation is how one screen was read, for `paneherd classify --explain`: the lines
// the pack reads, the regions the engine found, and every rule's verdict.
type Explanation struct {
	Result Result   `json:"result"`
	Lines  []string `json:"lines"`  // what the pack reads: non-empty, not ignored
	Input  int      `json:"input"`  // index into Lines of the input box; -1: none
	Cursor int      `json:"cursor"` // index into Lines of the cursor's line; -1: unknown
	// InputFound says how the input box was found, or where it was looked for in vain:
	// a new version's box that the pack's input pattern misses shows here first.
	InputFound string        `json:"input_found"`
	Rules      []RuleVerdict `json:"rules"`
}

// RuleVerdict is what one rule made of the screen.
type RuleVerdict struct {
	Rule    string      `json:"rule"`
	State   state.State `json:"state"`
	Line    int         `json:"line"`   // index into Lines of its match; -1: none
	Top     int         `json:"top"`    // the highest line its patterns matched; -1: none
	Bottom  int         `json:"bottom"` // the lowest line its patterns matched; -1: none
	Verdict string      `json:"verdict"`
	// From and To bound the region the rule looked at, as Lines[From:To]; From == To: empty.
	From int `json:"from"`
	To   int `json:"to"`
	// Near says, for a rule that stayed silent, what nearly matched: its match pattern on a
	// line outside its region, the require pattern no line fits, the unless pattern that
	// matched and where. A screen that changed between versions shows here.
	Near string `json:"near,omitempty"`
}

// Explain reads the screen as Classify does and says why. It gives the same Result.
func (p *Pack) Explain(s screen.Screen) Explanation {
	v := p.prepare(s, nil) // no memo: a one-off, beside a daemon's Classify
	ex := &Explanation{Input: v.input, Cursor: v.cursor, InputFound: p.inputFound(v)}
	for _, l := range v.lines {
		ex.Lines = append(ex.Lines, l.Text)
	}
	ex.Result = p.classify(v, ex)
	ex.Result.Clock = p.clock(s, nil)
	ex.Result.Context = p.screenContext(s)
	return *ex
}

// add records a rule's verdict; a nil Explanation (Classify) records nothing.
func (ex *Explanation) add(v view, r *Rule, m match, verdict string) {
	if ex == nil {
		return
	}
	sp := r.span(v)
	if sp.lo > sp.hi {
		sp.lo = sp.hi
	}
	ex.Rules = append(ex.Rules, RuleVerdict{Rule: r.Name, State: r.State.State, Line: m.hit, Top: m.top, Bottom: m.bottom,
		Verdict: verdict, From: sp.lo, To: sp.hi, Near: r.near(v, sp, m.hit < 0)})
}

// verdict words why a rule did not win; best is the result so far.
func verdict(m miss, best Result) string {
	switch m {
	case missProcess:
		return "silent: the foreground process does not fit"
	case missRegion:
		return "silent: its region is empty (no input box)"
	case missMatch:
		return "silent: nothing in its region matches"
	case missRequire:
		return "silent: a required pattern is missing from its region"
	case missUnless:
		return "silent: an unless pattern matched"
	case missUnlessBelow:
		return "silent: an unless_below pattern matched below its match (history)"
	case missUnlessTyped:
		return "silent: the text typed in the input box matches unless_typed"
	}
	return fmt.Sprintf("matched, outranked by %s (%s)", best.Rule, best.State)
}

// Print writes the explanation for a person: the numbered lines with the regions marked,
// then the rules.
func (ex Explanation) Print(w io.Writer) {
	fmt.Fprintf(w, "state:   %s\nrule:    %s\nsummary: %s\n", ex.Result.State, orNone(ex.Result.Rule), ex.Result.Summary)
	if ex.Result.Clock != "" {
		fmt.Fprintf(w, "clock:   %s\n", ex.Result.Clock)
	}
	if ex.Result.Context.Shown {
		fmt.Fprintf(w, "context: %d%% used\n", ex.Result.Context.UsedPct)
	}
	fmt.Fprintf(w, "input:   %s\n", ex.InputFound)
	fmt.Fprintln(w, "\nlines the pack reads (bottom = now):")
	marks := ex.marks()
	for i, l := range ex.Lines {
		fmt.Fprintf(w, "%4d %-14s %s\n", i, strings.Join(marks[i], ","), l)
	}
	fmt.Fprintln(w, "\nrules, in pack order:")
	for _, r := range ex.Rules {
		at := ""
		if r.Line >= 0 {
			at = fmt.Sprintf(" at line %d", r.Line)
			if r.Top < r.Bottom {
				at += fmt.Sprintf(" (lines %d-%d)", r.Top, r.Bottom)
			}
		}
		fmt.Fprintf(w, "  %-22s %-18s %s%s; region %s\n", r.Rule, r.State, r.Verdict, at, lineRange(r.From, r.To))
		if r.Near != "" {
			fmt.Fprintf(w, "  %-22s %-18s   near: %s\n", "", "", r.Near)
		}
	}
}

// marks labels the lines: the input box, the cursor, the winner's match (for a dialog, its
// lines down to its last choice: the bottom-most interaction), stale dialogs.
func (ex Explanation) marks() [][]string {
	marks := make([][]string, len(ex.Lines))
	mark := func(i int, s string) {
		if i >= 0 && i < len(marks) {
			marks[i] = append(marks[i], s)
		}
	}
	mark(ex.Input, "input")
	mark(ex.Cursor, "cursor")
	for _, r := range ex.Rules {
		label := ""
		switch {
		case r.Verdict == "won" && r.State == state.NeedsConfirmation:
			label = "dialog"
		case r.Verdict == "won":
			label = "winner"
		case strings.HasPrefix(r.Verdict, "stale"):
			label = "stale-dialog"
		default:
			continue
		}
		for i := r.Top; i <= r.Bottom; i++ {
			mark(i, label)
		}
	}
	return marks
}

func orNone(s string) string {
	if s == "" {
		return "(none matched)"
	}
	return s
}

// lineRange words Lines[from:to].
func lineRange(from, to int) string {
	switch {
	case from >= to:
		return "empty"
	case to-from == 1:
		return fmt.Sprintf("line %d", from)
	}
	return fmt.Sprintf("lines %d-%d", from, to-1)
}

// inputFound says how findInput placed the input box, or where it looked in vain.
func (p *Pack) inputFound(v view) string {
	switch {
	case p.Input.Line == nil:
		return "the pack names no input box"
	case v.input < 0:
		return fmt.Sprintf("none: no line of the last %d fits `%s` (a numbered choice does not count)", p.Input.Search, p.Input.Line)
	case v.input == v.cursor:
		return fmt.Sprintf("line %d, the cursor's line", v.input)
	case v.input >= len(v.lines)-p.Input.Search:
		return fmt.Sprintf("line %d, the lowest of the last %d lines that fits `%s`", v.input, p.Input.Search, p.Input.Line)
	}
	return fmt.Sprintf("line %d, a slash command above its popup", v.input)
}

// near says what nearly made a silent rule fire; unfired: it did not fire at all (a rule
// that fired and was outranked or stale needs no word).
func (r *Rule) near(v view, sp span, unfired bool) string {
	if !unfired || !r.processFits(v.fg) {
		return ""
	}
	region := v.lines[sp.lo:max(sp.lo, sp.hi)]
	if v.matchLine(region, r.Match) < 0 {
		if i := v.matchLine(v.lines, r.Match); i >= 0 {
			return fmt.Sprintf("its match fits line %d, outside its region", i)
		}
		return ""
	}
	for _, req := range r.Require {
		if v.matchLine(region, Patterns{req}) >= 0 {
			continue
		}
		if i := v.matchLine(v.lines, Patterns{req}); i >= 0 {
			return fmt.Sprintf("require `%s` fits line %d, outside its region", req, i)
		}
		return fmt.Sprintf("require `%s` fits no line", req)
	}
	for _, u := range r.Unless {
		if i := v.matchLine(region, Patterns{u}); i >= 0 {
			return fmt.Sprintf("unless `%s` fits line %d", u, sp.lo+i)
		}
	}
	hit := v.matchLine(region, r.Match)
	for _, u := range r.UnlessBelow {
		if i := v.matchLine(region[hit+1:], Patterns{u}); i >= 0 {
			return fmt.Sprintf("unless_below `%s` fits line %d, below its match at line %d", u, sp.lo+hit+1+i, sp.lo+hit)
		}
	}
	if len(r.UnlessTyped) > 0 {
		return fmt.Sprintf("the box holds %q", v.typed)
	}
	return ""
}
