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
	Result Result        `json:"result"`
	Lines  []string      `json:"lines"`  // what the pack reads: non-empty, not ignored
	Input  int           `json:"input"`  // index into Lines of the input box; -1: none
	Cursor int           `json:"cursor"` // index into Lines of the cursor's line; -1: unknown
	Rules  []RuleVerdict `json:"rules"`
}

// RuleVerdict is what one rule made of the screen.
type RuleVerdict struct {
	Rule    string      `json:"rule"`
	State   state.State `json:"state"`
	Line    int         `json:"line"`   // index into Lines of its match; -1: none
	Top     int         `json:"top"`    // the highest line its patterns matched; -1: none
	Bottom  int         `json:"bottom"` // the lowest line its patterns matched; -1: none
	Verdict string      `json:"verdict"`
}

// Explain reads the screen as Classify does and says why. It gives the same Result.
func (p *Pack) Explain(s screen.Screen) Explanation {
	v := p.prepare(s, nil) // no memo: a one-off, beside a daemon's Classify
	ex := &Explanation{Input: v.input, Cursor: v.cursor}
	for _, l := range v.lines {
		ex.Lines = append(ex.Lines, l.Text)
	}
	ex.Result = p.classify(v, ex)
	ex.Result.Clock = p.clock(s, nil)
	return *ex
}

// add records a rule's verdict; a nil Explanation (Classify) records nothing.
func (ex *Explanation) add(r *Rule, m match, verdict string) {
	if ex == nil {
		return
	}
	ex.Rules = append(ex.Rules, RuleVerdict{Rule: r.Name, State: r.State.State, Line: m.hit, Top: m.top, Bottom: m.bottom, Verdict: verdict})
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
		fmt.Fprintf(w, "  %-22s %-18s %s%s\n", r.Rule, r.State, r.Verdict, at)
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
