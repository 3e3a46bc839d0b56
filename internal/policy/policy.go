// Package policy is the person's rules for answering dialogs without them: which dialogs
// of which panes are approved, denied, or left to ask, read from one TOML file
// ($XDG_CONFIG_HOME/paneherd/policy.toml). Deny and ask rules win over approve rules
// whatever their order; no rule, or a dialog whose subject cannot be read exactly, asks.
package policy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/packs"
)

// Actions a rule may take.
const (
	Approve = "approve" // press the pack's approve choice (never "always")
	Deny    = "deny"    // press the pack's deny choice, and tell the person
	Ask     = "ask"     // press nothing: the person is told, as with no policy
)

// Where a rule applies.
const (
	WhereAll     = "all"     // every pane
	WhereManaged = "managed" // managed workers only (paneherd create)
)

// File is a policy file: its rules, in order.
type File struct {
	Rules  []Rule `toml:"rules"`
	Source string `toml:"-"` // the file it came from
}

// Rule is one rule. Each condition it sets must hold for it to match; a list holds when
// one of its entries does.
type Rule struct {
	Name   string `toml:"name"`
	Action string `toml:"action"`
	// What it matches: the pack reading the pane, the dialog's kind (packs.Kinds), and
	// globs on the subject the dialog shows: commands (kind command), paths (edit,
	// trust; relative globs are the pane's folder's) and tools (mcp, fetch).
	Packs    []string `toml:"packs"`
	Kinds    []string `toml:"kinds"`
	Commands []string `toml:"commands"`
	Paths    []string `toml:"paths"`
	Tools    []string `toml:"tools"`
	// WithinWorkspace: the path lies inside the pane's folder (a worker's workspace).
	WithinWorkspace bool `toml:"within_workspace"`
	// AllowChained lets an approve rule's commands match a line that chains or hides
	// commands (; && || | & backticks $( redirections); without it such a line never
	// matches an approve rule.
	AllowChained bool `toml:"allow_chained"`
	// Where it applies: "all" (default) or "managed"; named workers; panes whose folder
	// lies inside one of dirs.
	Where   string   `toml:"where"`
	Workers []string `toml:"workers"`
	Dirs    []string `toml:"dirs"`

	commands, paths, tools []*regexp.Regexp
	line                   int // in Source, for messages
}

// ErrNone is returned by Load when there is no policy file: no rule applies.
var ErrNone = errors.New("no policy file")

// Path is where the policy lives: $XDG_CONFIG_HOME/paneherd/policy.toml; "" with
// neither XDG_CONFIG_HOME nor HOME set.
func Path(getenv func(string) string) string {
	base, err := paths.XDG(getenv, "XDG_CONFIG_HOME", ".config")
	if err != nil {
		return ""
	}
	return filepath.Join(base, "paneherd", "policy.toml")
}

// Load reads and checks a policy file; ErrNone (wrapped) when it does not exist. Errors
// are *packs.Error, naming the file and line.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("policy: %s: %w", path, ErrNone)
	}
	if err != nil {
		return nil, &packs.Error{File: path, Msg: err.Error()}
	}
	return Parse(path, data)
}

// Parse decodes and checks a policy; source names the file in errors.
func Parse(source string, data []byte) (*File, error) {
	f := &File{Source: source}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &packs.Error{File: source, Line: pe.Position.Line, Msg: pe.Message}
		}
		return nil, &packs.Error{File: source, Msg: err.Error()}
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		key := undecoded[0]
		return nil, &packs.Error{File: source, Line: keyLine(data, key[len(key)-1]), Msg: fmt.Sprintf("unknown key %q", key.String())}
	}
	seen := map[string]bool{}
	for i := range f.Rules {
		r := &f.Rules[i]
		r.line = ruleLine(data, i)
		if err := r.check(seen); err != nil {
			return nil, &packs.Error{File: source, Line: r.line, Msg: err.Error()}
		}
	}
	return f, nil
}

// check validates a rule and compiles its globs.
func (r *Rule) check(seen map[string]bool) error {
	switch {
	case r.Name == "":
		return errors.New("a rule has no name")
	case seen[r.Name]:
		return fmt.Errorf("rule %q is defined twice", r.Name)
	case r.Action != Approve && r.Action != Deny && r.Action != Ask:
		return fmt.Errorf("rule %q: action %q is none of approve, deny, ask", r.Name, r.Action)
	case r.Where != "" && r.Where != WhereAll && r.Where != WhereManaged:
		return fmt.Errorf("rule %q: where %q is none of all, managed", r.Name, r.Where)
	case r.Action == Approve && len(r.Kinds)+len(r.Commands)+len(r.Paths)+len(r.Tools) == 0 && !r.WithinWorkspace:
		return fmt.Errorf("rule %q approves every dialog: name its kinds, commands, paths or tools", r.Name)
	}
	seen[r.Name] = true
	for _, k := range r.Kinds {
		if !slices.Contains(packs.Kinds, k) {
			return fmt.Errorf("rule %q: kind %q is none of %s", r.Name, k, strings.Join(packs.Kinds, ", "))
		}
	}
	for i, d := range r.Dirs {
		r.Dirs[i] = expandHome(d)
	}
	r.commands, r.paths, r.tools = globs(r.Commands), globs(r.Paths), globs(r.Tools)
	return nil
}

// keyLine is the 1-based line where key is set, or 0.
func keyLine(data []byte, key string) int {
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, key+" ") || strings.HasPrefix(l, key+"=") {
			return i + 1
		}
	}
	return 0
}

// ruleLine is the 1-based line of the n-th (0-based) [[rules]], or 0.
func ruleLine(data []byte, n int) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "[[rules]]" {
			if n == 0 {
				return i + 1
			}
			n--
		}
	}
	return 0
}

// expandHome turns a leading ~/ into $HOME/.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return filepath.Clean(p)
}
