package packs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/state"
)

//go:embed builtin/*.toml
var builtinFS embed.FS

// SourceBuiltin marks a pack embedded in the binary.
const SourceBuiltin = "builtin"

// Set is every pack available, by name.
type Set struct {
	byName map[string]*Pack
	// Problems are user pack files that could not be used; the packs they would have
	// replaced keep working.
	Problems []error
}

// Load reads the builtin packs, then every *.toml in userDir ("" or missing: none).
func Load(userDir string) *Set {
	s := &Set{byName: map[string]*Pack{}}
	for _, name := range BuiltinNames() {
		data, _ := Builtin(name)
		p, err := Parse(name, SourceBuiltin, data)
		if err != nil {
			// A broken builtin is a bug in this binary; tests load every one.
			s.Problems = append(s.Problems, err)
			continue
		}
		s.byName[name] = p
	}
	s.loadDir(userDir)
	return s
}

func (s *Set) loadDir(dir string) {
	if dir == "" {
		return
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		s.Problems = append(s.Problems, fmt.Errorf("packs: %s: %w", dir, err))
		return
	}
	for _, f := range files {
		p, err := ParseFile(f)
		if err != nil {
			s.Problems = append(s.Problems, err)
			continue
		}
		s.byName[p.Name] = p
	}
}

// ParseFile reads one user pack. Its name is the file name without .toml.
func ParseFile(path string) (*Pack, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return Parse(strings.TrimSuffix(filepath.Base(path), ".toml"), path, data)
}

// Parse decodes and checks a pack. source is "builtin" or the file path, and names the
// file in errors.
func Parse(name, source string, data []byte) (*Pack, error) {
	p := &Pack{Source: source}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(p)
	if err != nil {
		return nil, decodeError(source, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		key := undecoded[0].String()
		last := undecoded[0][len(undecoded[0])-1]
		return nil, &Error{File: source, Line: lineOf(data, last+" ", last+"="),
			Msg: fmt.Sprintf("unknown key %q", key)}
	}
	if p.Name == "" {
		p.Name = name
	}
	if err := p.check(data); err != nil {
		return nil, err
	}
	p.defaults()
	p.memo = newLineMemo()
	return p, nil
}

// decodeError locates a TOML error. toml.ParseError carries the line, including for
// values our types reject (a bad regular expression, an unknown state).
func decodeError(source string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = fmt.Sprintf("%s: %s", pe.LastKey, msg)
		}
		return &Error{File: source, Line: pe.Position.Line, Msg: msg}
	}
	return &Error{File: source, Msg: err.Error()}
}

// check finds what TOML cannot: a pack that says nothing, rules without a name, state or
// pattern, a launch that cannot start, keys without a name.
func (p *Pack) check(data []byte) error {
	if len(p.Rules) == 0 && p.Detect.empty() {
		return p.emptyError(data)
	}
	if err := p.checkSupervision(data); err != nil {
		return err
	}
	if err := p.checkTested(data); err != nil {
		return err
	}
	if err := p.checkContext(data); err != nil {
		return err
	}
	settle := p.Settle.Duration
	if settle == 0 {
		settle = DefaultSettle
	}
	if p.SettleAfterWork.Duration > settle {
		return &Error{File: p.Source, Line: lineOf(data, "settle_after_work"), Msg: fmt.Sprintf("settle_after_work (%v) is longer than settle (%v): it can only shorten the wait after work; lower it or remove it", p.SettleAfterWork.Duration, settle)}
	}
	seen := map[string]bool{}
	for i, r := range p.Rules {
		bad := func(msg string) error {
			return &Error{File: p.Source, Line: nthLine(data, "[[rules]]", i), Msg: msg}
		}
		switch {
		case r.Name == "":
			return bad(fmt.Sprintf("rule %d has no name", i+1))
		case seen[r.Name]:
			return bad(fmt.Sprintf("rule %q is defined twice", r.Name))
		case r.State.State == "":
			return bad(fmt.Sprintf("rule %q has no state", r.Name))
		case len(r.Match) == 0:
			return bad(fmt.Sprintf("rule %q has no match", r.Name))
		case r.Settle.Duration > 0 && r.State.State != state.Ready:
			return bad(fmt.Sprintf("rule %q has a settle time, but it reads %s: settle is how long a READY screen must hold still; remove it", r.Name, r.State.State))
		}
		if err := p.checkChoices(r); err != nil {
			return bad(err.Error())
		}
		if err := r.checkSubjects(); err != nil {
			return bad(err.Error())
		}
		seen[r.Name] = true
	}
	return nil
}

// checkSupervision checks what the supervisor uses: a resume command needs the command
// that starts the CLI fresh (a worker with no conversation to continue starts so), and
// every key it presses must have a name.
func (p *Pack) checkSupervision(data []byte) error {
	if strings.TrimSpace(p.Launch.Resume) != "" && strings.TrimSpace(p.Launch.Command) == "" {
		return &Error{File: p.Source, Line: lineOf(data, "[launch]"),
			Msg: "[launch] has resume but no command: add command, the line that starts the CLI fresh (resume only continues a conversation)"}
	}
	for _, keys := range []struct {
		name string
		keys []string
	}{{"interrupt", p.Actions.Interrupt}, {"nudge", p.Actions.Nudge}} {
		for i, k := range keys.keys {
			if strings.TrimSpace(k) == "" {
				return &Error{File: p.Source, Line: lineOf(data, keys.name+" ", keys.name+"="),
					Msg: fmt.Sprintf("[actions] %s: key %d is empty; write tmux key names, such as \"C-c\" or \"Escape\"", keys.name, i+1)}
			}
		}
	}
	return nil
}

// versionText is a version as CLIs number theirs and `paneherd doctor` compares them:
// dotted digits.
var versionText = regexp.MustCompile(`^\d+(?:\.\d+)+$`)

// checkTested checks that each tested version is dotted digits, as the process's version
// is read (proc.Version): anything else would never match one.
func (p *Pack) checkTested(data []byte) error {
	for _, v := range p.Tested {
		if !versionText.MatchString(v) {
			return &Error{File: p.Source, Line: lineOf(data, "tested ", "tested="),
				Msg: fmt.Sprintf("tested: %q is not a version: write dotted digits, such as \"2.1.197\"", v)}
		}
	}
	return nil
}

// emptyError explains a pack with neither detection nor rules. Loaded, it would replace a
// builtin of its name with a pack that never decides anything; the usual cause is
// `paneherd packs show NAME > FILE`, whose shell creates FILE before paneherd reads it.
func (p *Pack) emptyError(data []byte) error {
	msg := "no [detect] and no [[rules]]: this pack would recognise and decide nothing"
	if len(bytes.TrimSpace(data)) == 0 {
		msg = "empty file: a pack needs [detect] or [[rules]]"
	}
	if _, ok := Builtin(p.Name); ok {
		msg += fmt.Sprintf("; the builtin %q stays in force. To start from the builtin: paneherd packs show --builtin %s > %s",
			p.Name, p.Name, p.Source)
	}
	return &Error{File: p.Source, Msg: msg}
}

// lineOf returns the 1-based line of the first line that starts (after blanks) with any
// of the prefixes, or 0.
func lineOf(data []byte, prefixes ...string) int {
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				return i + 1
			}
		}
	}
	return 0
}

// nthLine returns the 1-based line of the n-th (0-based) line that is exactly marker.
func nthLine(data []byte, marker string, n int) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == marker {
			if n == 0 {
				return i + 1
			}
			n--
		}
	}
	return 0
}

// Get returns the pack with that name.
func (s *Set) Get(name string) (*Pack, error) {
	if p, ok := s.byName[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w %q (have: %s)", ErrUnknownPack, name, strings.Join(s.Names(), ", "))
}

// Names lists the packs, sorted.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.byName))
	for n := range s.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns the packs sorted by name.
func (s *Set) All() []*Pack {
	var all []*Pack
	for _, n := range s.Names() {
		all = append(all, s.byName[n])
	}
	return all
}

// BuiltinNames lists the embedded packs.
func BuiltinNames() []string {
	entries, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	return names
}

// Builtin returns an embedded pack's TOML, for `packs show` and for copying.
func Builtin(name string) ([]byte, bool) {
	data, err := builtinFS.ReadFile("builtin/" + name + ".toml")
	return data, err == nil
}

// UserDir is where user packs live: $XDG_CONFIG_HOME/paneherd/packs.
// With neither XDG_CONFIG_HOME nor HOME set there is none: "".
func UserDir(getenv func(string) string) string {
	base, err := paths.XDG(getenv, "XDG_CONFIG_HOME", ".config")
	if err != nil {
		return ""
	}
	return filepath.Join(base, "paneherd", "packs")
}
