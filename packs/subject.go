package packs

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

// Kinds of dialogs, as a rule's subjects name them and a policy's rules match them.
const (
	KindCommand = "command" // a shell command to run: the subject is its line
	KindEdit    = "edit"    // a file to edit, create or write: the subject is its path
	KindFetch   = "fetch"   // a URL or site to fetch: the subject is the URL or domain
	KindMCP     = "mcp"     // an MCP server's tool: the subject is the tool's name
	KindTrust   = "trust"   // a folder to trust: the subject is its path
	KindPlan    = "plan"    // a plan to carry out: no subject can be read exactly
)

// Kinds lists every kind, in the order docs name them.
var Kinds = []string{KindCommand, KindEdit, KindFetch, KindMCP, KindTrust, KindPlan}

// Subject is one form of a dialog: its kind, and where it shows what it asks about.
type Subject struct {
	Kind string `toml:"kind"`
	// Pattern is matched against the dialog's lines (and up to subjectReach lines above
	// them) joined by newlines, with ^ and $ at each line's ends; its last match must
	// reach the lines the rule matched, so a title left in the scrollback is not read.
	// Its group "subject" is the command, path or tool; without that group the form
	// gives the kind only. No pattern: the rule's dialogs are all of this kind.
	Pattern *Pattern `toml:"pattern"`
}

// subjectReach is how far above a dialog's matched lines its subject may sit: a title
// and a command over a diff of a few lines, not the transcript.
const subjectReach = 40

// wrapMargin is how many columns short of the pane's width a line already counts as
// reaching its edge: CLIs wrap inside their own margins and box borders.
const wrapMargin = 8

// subject reads what the dialog v shows at m asks about: its kind, the subject as
// shown, and why that is not exact ("" when it is).
func (r *Rule) subject(v view, m match) (kind, subject, inexact string) {
	if r == nil || len(r.Subjects) == 0 {
		return "", "", "the pack names no kind for this dialog"
	}
	for _, s := range r.Subjects {
		if s.Pattern == nil {
			return s.Kind, "", "the dialog shows no subject the pack can read"
		}
		text, line, found, reaching := s.find(v, m)
		switch {
		case !found:
			continue
		case line < 0:
			return s.Kind, "", "the dialog shows no subject the pack can read"
		case reaching > 1:
			return s.Kind, text, fmt.Sprintf("the dialog shows %d of them; only one can be matched exactly", reaching)
		}
		return s.Kind, text, cut(v, line, text)
	}
	return "", "", "none of the pack's subject patterns matches this dialog"
}

// find returns the subject's text and its line (an index into v.lines; -1 for a form
// with no subject group), whether the pattern matched the dialog at all, and how many
// of its matches reach the dialog (a dialog may name several files).
func (s Subject) find(v view, m match) (text string, line int, found bool, reaching int) {
	lo := max(0, m.top-subjectReach)
	joined := screen.Join(v.lines[lo : m.bottom+1])
	var last []int
	for _, at := range s.Pattern.FindAllStringSubmatchIndex(joined, -1) {
		if lo+strings.Count(joined[:at[1]], "\n") >= m.top { // above the dialog: history
			last = at
			reaching++
		}
	}
	if last == nil {
		return "", -1, false, 0
	}
	g := s.Pattern.SubexpIndex("subject")
	if g < 0 || last[2*g] < 0 {
		return "", -1, true, reaching
	}
	start, end := last[2*g], last[2*g+1]
	return strings.TrimSpace(joined[start:end]), lo + strings.Count(joined[:start], "\n"), true, reaching
}

// cut says why a subject shown on v.lines[line] may not be all of it: cut short with an
// ellipsis, spread over lines, reaching the pane's edge, or followed by a line whose first
// word would have fitted on it had the line ended there (so it was wrapped).
func cut(v view, line int, subject string) string {
	switch {
	case subject == "":
		return "the subject the dialog shows is empty"
	case strings.Contains(subject, "\n"):
		return "the subject spreads over several lines"
	case strings.HasSuffix(subject, "…") || strings.HasSuffix(subject, "..."):
		return "the subject ends with an ellipsis: the screen shows it cut short"
	case v.width <= 0:
		return "the pane's width is unknown, so a wrapped line cannot be told"
	}
	limit := v.width - wrapMargin
	end := columns(strings.TrimRightFunc(v.lines[line].Text, isBorder))
	if end > limit {
		return fmt.Sprintf("its line reaches the pane's edge (column %d of %d): it may go on out of view", end, v.width)
	}
	if line+1 < len(v.lines) {
		if next := firstWord(v.lines[line+1].Text); next != "" && end+1+columns(next) > limit {
			return fmt.Sprintf("the next line may carry on with it (%q would not have fitted): it may be wrapped", next)
		}
	}
	return ""
}

// isBorder is a blank or a character CLIs draw boxes and gutters with.
func isBorder(r rune) bool {
	return r == ' ' || r == '\t' || r == '\u00a0' || (r >= 0x2500 && r <= 0x257f)
}

// firstWord is a line's first word once borders and blanks are stripped; a line of
// borders only has none.
func firstWord(s string) string {
	s = strings.TrimLeftFunc(s, isBorder)
	if i := strings.IndexFunc(s, isBorder); i >= 0 {
		s = s[:i]
	}
	return s
}

// columns counts the columns a string takes, a rune above U+1100 as two: more than some
// take, so a line is never thought shorter than it is.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x1100 {
			n++
		}
	}
	return n
}

// prepareSubjects makes each subject pattern match line by line within the joined
// dialog.
func (r *Rule) prepareSubjects() {
	for i, s := range r.Subjects {
		if s.Pattern != nil && !strings.HasPrefix(s.Pattern.String(), "(?m)") {
			r.Subjects[i].Pattern = &Pattern{regexp.MustCompile("(?m)" + s.Pattern.String())}
		}
	}
}

// checkSubjects rejects a subject of no known kind, or on a rule that is no dialog.
func (r Rule) checkSubjects() error {
	if len(r.Subjects) > 0 && r.State.State != state.NeedsConfirmation {
		return fmt.Errorf("rule %q: only NEEDS_CONFIRMATION rules take subjects", r.Name)
	}
	for _, s := range r.Subjects {
		if !slices.Contains(Kinds, s.Kind) {
			return fmt.Errorf("rule %q: subject kind %q is none of %s", r.Name, s.Kind, strings.Join(Kinds, ", "))
		}
	}
	return nil
}
