// Package agenthooks writes paneherd's hooks into the agents' own settings, the second
// witness of docs/inside.md, "Agent hooks": Claude Code's and Gemini CLI's `hooks` (settings.json),
// Codex's `notify` program (config.toml). Each hook runs `<paneherd> hook agent NAME
// EVENT`. It merges with the user's hooks and never drops one, changes nothing when all
// is in place, backs a file up before changing it, and leaves a file it cannot read as
// it is, saying why.
package agenthooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Agents paneherd can install hooks for.
var Agents = []string{"claude", "codex", "gemini"}

// ErrUnknownAgent is returned for an agent paneherd has no hooks for.
var ErrUnknownAgent = errors.New("unknown agent")

// ErrUnreadable is returned when an agent's settings file cannot be parsed: it is left
// untouched.
var ErrUnreadable = errors.New("cannot read the agent's settings")

// ErrForeignNotify is returned when Codex already runs a notify program that is not
// paneherd's: Codex runs only one, and replacing it would silence the user's.
var ErrForeignNotify = errors.New("codex already has a notify program")

// Change is what installing or uninstalling does to one agent's settings file.
type Change struct {
	Agent   string
	File    string
	Actions []string // one line each, for a person: what is added, replaced, removed
	old     []byte
	new     []byte
	exists  bool
}

// Changed reports whether the file would change.
func (c Change) Changed() bool { return !bytes.Equal(c.old, c.new) }

// Status is whether an agent's hooks are in place.
type Status struct {
	Agent     string
	File      string
	Installed bool   // every hook is there, running this binary
	Detail    string // for a person: what is there, what is missing
}

// agent is one agent's settings format.
type agent interface {
	// install returns the new file, with what it did; text is nil when the file does
	// not exist.
	install(text []byte, binary string) ([]byte, []string, error)
	uninstall(text []byte) ([]byte, []string, error)
	status(text []byte, binary string) (bool, string, error)
}

func lookup(name string, getenv func(string) string) (agent, string, error) {
	home := getenv("HOME")
	under := func(env, sub string) string {
		if v := getenv(env); v != "" {
			return v
		}
		return filepath.Join(home, sub)
	}
	switch name {
	case "claude":
		return claudeAgent, filepath.Join(under("CLAUDE_CONFIG_DIR", ".claude"), "settings.json"), nil
	case "codex":
		return codexAgent{}, filepath.Join(under("CODEX_HOME", ".codex"), "config.toml"), nil
	case "gemini":
		return geminiAgent, filepath.Join(home, ".gemini", "settings.json"), nil
	}
	return nil, "", fmt.Errorf("%w %q: paneherd installs hooks for %s", ErrUnknownAgent, name, strings.Join(Agents, ", "))
}

// Install works out what installing the agent's hooks for binary (an absolute path)
// changes; Apply does it.
func Install(name, binary string, getenv func(string) string) (Change, error) {
	return plan(name, getenv, func(a agent, text []byte) ([]byte, []string, error) { return a.install(text, binary) })
}

// Uninstall works out what removing paneherd's hooks (for any binary) changes.
func Uninstall(name string, getenv func(string) string) (Change, error) {
	return plan(name, getenv, func(a agent, text []byte) ([]byte, []string, error) {
		if text == nil {
			return nil, nil, nil
		}
		return a.uninstall(text)
	})
}

func plan(name string, getenv func(string) string, edit func(agent, []byte) ([]byte, []string, error)) (Change, error) {
	a, file, err := lookup(name, getenv)
	if err != nil {
		return Change{}, err
	}
	c := Change{Agent: name, File: file}
	c.old, c.exists, err = read(file)
	if err != nil {
		return c, err
	}
	c.new, c.Actions, err = edit(a, c.old)
	if err != nil {
		return c, fmt.Errorf("%s: %w", file, err)
	}
	if !c.Changed() {
		c.new, c.Actions = c.old, nil
	}
	return c, nil
}

// StatusOf says whether the agent's hooks are installed for binary.
func StatusOf(name, binary string, getenv func(string) string) (Status, error) {
	a, file, err := lookup(name, getenv)
	if err != nil {
		return Status{}, err
	}
	s := Status{Agent: name, File: file}
	text, exists, err := read(file)
	if err != nil {
		return s, err
	}
	if !exists {
		s.Detail = "not installed (no settings file yet)"
		return s, nil
	}
	s.Installed, s.Detail, err = a.status(text, binary)
	if err != nil {
		return s, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

// read returns a settings file's text; nil and false when it does not exist.
func read(file string) ([]byte, bool, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("agenthooks: read %s: %w", file, err)
	}
	return b, true, nil
}

// Apply writes the change: the file as it was is copied beside it first
// (FILE.paneherd-backup-TIME), then the new text replaces it in one rename, with the old
// file's mode. A symlinked file (dotfiles) is written where the link points. It returns
// the backup's path ("" when there was no file, or nothing to change).
func (c Change) Apply(now time.Time) (string, error) {
	if !c.Changed() {
		return "", nil
	}
	target, mode := c.File, os.FileMode(0o600)
	if c.exists {
		if t, err := filepath.EvalSymlinks(c.File); err == nil {
			target = t
		}
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
	} else if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", fmt.Errorf("agenthooks: %w", err)
	}
	if err := c.unchangedSince(target); err != nil {
		return "", err
	}
	backup := ""
	if c.exists {
		backup = target + ".paneherd-backup-" + now.Format("20060102-150405.000")
		if err := os.WriteFile(backup, c.old, mode); err != nil {
			return "", fmt.Errorf("agenthooks: back up %s: %w (nothing changed)", target, err)
		}
	}
	if err := writeAtomic(target, c.new, mode); err != nil {
		return backup, err
	}
	return backup, nil
}

// unchangedSince refuses when the file is no longer what the change was planned on: the
// agent (or the person) rewrote it meanwhile, and writing would lose what they wrote.
func (c Change) unchangedSince(target string) error {
	now, err := os.ReadFile(target)
	switch {
	case !c.exists && errors.Is(err, os.ErrNotExist):
		return nil
	case err == nil && c.exists && bytes.Equal(now, c.old):
		return nil
	}
	return fmt.Errorf("agenthooks: %s changed while paneherd was reading it; nothing written: run this again", c.File)
}

func writeAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".paneherd-*")
	if err != nil {
		return fmt.Errorf("agenthooks: write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("agenthooks: write %s: %w (the file is as it was)", path, err)
	}
	return nil
}

// hookWords are the words after the binary in every hook paneherd writes.
func hookWords(agent, event string) []string { return []string{"hook", "agent", agent, event} }

// ours reports whether a command's words run paneherd's agent hook for agent: BINARY
// hook agent AGENT EVENT, whatever the binary is called or wherever it lives, so a hook
// written by a binary since moved or renamed is found too.
func ours(words []string, agent string) bool {
	return len(words) == 5 && slices.Equal(words[1:4], []string{"hook", "agent", agent})
}
