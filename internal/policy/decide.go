package policy

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// Dialog is what a pane's dialog shows, as its pack read it (packs.Result).
type Dialog struct {
	Pack, Rule string // the pack and its dialog rule
	Kind       string // packs.Kinds; "": the pack names none
	Subject    string // the command, path or tool as shown
	Inexact    string // why Subject may not be all of it; "": it is
}

// DialogOf is the dialog a pack's reading shows.
func DialogOf(r packs.Result) Dialog {
	return Dialog{Pack: r.Pack, Rule: r.Rule, Kind: r.Kind, Subject: r.Subject, Inexact: r.Inexact}
}

// Pane is where a dialog is: whether a managed worker's, its name, and its folder (the
// worker's workspace, else the pane's current path).
type Pane struct {
	ID      string
	Managed bool
	Worker  string
	Dir     string
}

// PaneOf is what the policy knows of pane p: a managed worker's name and workspace (one of
// workers runs in it), else the pane's current folder.
func PaneOf(p wire.Pane, workers []wire.Worker) Pane {
	out := Pane{ID: p.ID, Dir: p.CWD}
	for _, w := range workers {
		if w.PaneID == p.ID {
			out.Managed, out.Worker, out.Dir = true, w.Name, w.Workspace
		}
	}
	return out
}

// Decision is what the policy says of one dialog.
type Decision struct {
	Action string `json:"action"` // Approve, Deny, Ask
	Rule   string `json:"rule"`   // the rule that decided; "" when none did
	Why    string `json:"why"`
	// Matched are every rule that matched, in the file's order.
	Matched []string `json:"matched,omitempty"`
}

// Decide says what to do with the dialog at the pane. A subject that cannot be read
// exactly asks; else the first matching deny rule, else the first ask rule, else the
// first approve rule decides; no rule asks.
func (f *File) Decide(d Dialog, p Pane) Decision {
	if d.Inexact != "" {
		return Decision{Action: Ask, Why: "nothing is decided on a dialog not read exactly: " + d.Inexact}
	}
	var first = map[string]*Rule{}
	var matched []string
	for i := range f.Rules {
		r := &f.Rules[i]
		if !r.matches(d, p) {
			continue
		}
		matched = append(matched, r.Name)
		if first[r.Action] == nil {
			first[r.Action] = r
		}
	}
	for _, action := range []string{Deny, Ask, Approve} {
		if r := first[action]; r != nil {
			return Decision{Action: action, Rule: r.Name, Matched: matched, Why: r.why(d, action)}
		}
	}
	return Decision{Action: Ask, Why: fmt.Sprintf("no rule matches this %s dialog", d.Kind)}
}

// why says in a line why the rule decided.
func (r *Rule) why(d Dialog, action string) string {
	s := fmt.Sprintf("rule %q (%s) matches the %s %q", r.Name, action, d.Kind, d.Subject)
	if action == Approve {
		s += "; no deny or ask rule does"
	}
	return s
}

// matches reports whether every condition the rule sets holds for the dialog there.
func (r *Rule) matches(d Dialog, p Pane) bool {
	return r.appliesTo(p) &&
		(len(r.Packs) == 0 || slices.Contains(r.Packs, d.Pack)) &&
		(len(r.Kinds) == 0 || slices.Contains(r.Kinds, d.Kind)) &&
		r.subjectFits(d, p)
}

// appliesTo reports whether the rule's where holds for the pane.
func (r *Rule) appliesTo(p Pane) bool {
	if (r.Where == WhereManaged || len(r.Workers) > 0) && !p.Managed {
		return false
	}
	if len(r.Workers) > 0 && !slices.Contains(r.Workers, p.Worker) {
		return false
	}
	return len(r.Dirs) == 0 || slices.ContainsFunc(r.Dirs, func(dir string) bool { return inside(p.Dir, dir) })
}

// subjectFits checks the rule's globs against the subject, each for its kinds.
func (r *Rule) subjectFits(d Dialog, p Pane) bool {
	if r.hidesFromApproval(d) {
		return false
	}
	if len(r.commands) > 0 && (d.Kind != packs.KindCommand || !r.commandFits(d.Subject)) {
		return false
	}
	if len(r.tools) > 0 && ((d.Kind != packs.KindMCP && d.Kind != packs.KindFetch) || !anyGlob(r.tools, d.Subject)) {
		return false
	}
	if len(r.paths) == 0 && !r.WithinWorkspace {
		return true
	}
	if d.Kind != packs.KindEdit && d.Kind != packs.KindTrust {
		return false
	}
	path := resolve(p.Dir, expandHome(d.Subject))
	if r.WithinWorkspace && (p.Dir == "" || !inside(path, p.Dir)) {
		return false
	}
	return len(r.paths) == 0 || slices.ContainsFunc(r.Paths, func(g string) bool { return glob(resolve(p.Dir, expandHome(g))).MatchString(path) })
}

// hidesFromApproval reports whether the dialog runs a line an approve rule may not pass
// without AllowChained: one that chains or hides commands. It holds for a rule without
// commands too, so a rule for every command of a kind approves no `npm test; curl x | sh`.
func (r *Rule) hidesFromApproval(d Dialog) bool {
	return r.Action == Approve && !r.AllowChained && d.Kind == packs.KindCommand && Chained(d.Subject)
}

// commandFits: an approve rule matches the whole line (a chained one was refused before,
// hidesFromApproval); a deny or ask rule matches the line or any command in it, so
// `npm test && git push` meets the rule for `git push`.
func (r *Rule) commandFits(line string) bool {
	if r.Action == Approve {
		return anyGlob(r.commands, line)
	}
	return anyGlob(r.commands, line) || slices.ContainsFunc(Segments(line), func(s string) bool { return anyGlob(r.commands, s) })
}

// chainMarks are what chain, hide or redirect commands in a shell line.
const chainMarks = ";&|`<>\n"

// Chained reports whether a command line runs more than one command or hides one:
// ; && || | & backticks $( and redirections.
func Chained(line string) bool {
	return strings.ContainsAny(line, chainMarks) || strings.Contains(line, "$(")
}

var separators = regexp.MustCompile("&&|\\|\\||[;|&\n`<>()]|\\$\\(")

// Segments are the commands of a line split at every chaining mark.
func Segments(line string) []string {
	var out []string
	for _, s := range separators.Split(line, -1) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// globs compiles globs: * is any run of characters (spaces and slashes too), ? one;
// the rest is literal, and the glob must match the whole subject.
func globs(gs []string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, g := range gs {
		out = append(out, glob(g))
	}
	return out
}

func glob(g string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	for _, c := range g {
		switch c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

func anyGlob(gs []*regexp.Regexp, s string) bool {
	return slices.ContainsFunc(gs, func(g *regexp.Regexp) bool { return g.MatchString(s) })
}

// resolve makes a path the dialog shows absolute: relative ones are the pane's folder's.
func resolve(dir, path string) string {
	if filepath.IsAbs(path) || dir == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}

// inside reports whether path is dir or lies under it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && path != "" && dir != ""
}
