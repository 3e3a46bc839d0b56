package agenthooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/hooks"
)

// jsonAgent is an agent whose settings.json holds
// "hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command", "command": ...}]}]}:
// Claude Code and Gemini CLI.
type jsonAgent struct {
	name string
	// entry is paneherd's hook for one event, as the agent wants it.
	entry func(event, command string) *object
}

var claudeAgent = jsonAgent{name: hooks.Claude, entry: func(event, command string) *object {
	h := newObject()
	h.set("type", "command")
	h.set("command", command)
	h.set("timeout", json.Number("5")) // seconds; the hook takes milliseconds
	g := newObject()
	if event == "PreToolUse" || event == "PostToolUse" {
		g.set("matcher", "*") // every tool
	}
	g.set("hooks", []any{h})
	return g
}}

var geminiAgent = jsonAgent{name: hooks.Gemini, entry: func(event, command string) *object {
	h := newObject()
	h.set("name", "paneherd")
	h.set("type", "command")
	h.set("command", command)
	h.set("timeout", json.Number("5000")) // milliseconds
	g := newObject()
	g.set("hooks", []any{h})
	return g
}}

func (a jsonAgent) command(binary, event string) string {
	return shellWords(append([]string{binary}, hookWords(a.name, event)...))
}

// unreadable wraps a parse error for a person: the file stays as it is.
func unreadable(err error) error {
	return fmt.Errorf("%w: %v; fix the file (the agent cannot read it either) or move it aside, then run this again; it was left as it is", ErrUnreadable, err)
}

// hooksOf is the document's "hooks" object, made when absent and create is set.
func hooksOf(doc *object, create bool) (*object, error) {
	v, ok := doc.get("hooks")
	if !ok {
		if !create {
			return nil, nil
		}
		h := newObject()
		doc.set("hooks", h)
		return h, nil
	}
	h, ok := v.(*object)
	if !ok {
		return nil, unreadable(fmt.Errorf(`"hooks" is not an object`))
	}
	return h, nil
}

func (a jsonAgent) install(text []byte, binary string) ([]byte, []string, error) {
	doc, err := parseObject(text)
	if err != nil {
		return nil, nil, unreadable(err)
	}
	hs, err := hooksOf(doc, true)
	if err != nil {
		return nil, nil, err
	}
	var actions []string
	for _, event := range hooks.AgentEvents[a.name] {
		groups, err := groupsOf(hs, event)
		if err != nil {
			return nil, nil, err
		}
		want := a.entry(event, a.command(binary, event))
		kept, removed := a.strip(groups)
		if removed == 1 && len(kept) == len(groups)-1 && hasGroup(groups, want) {
			continue // in place already
		}
		verb := "add"
		if removed > 0 {
			verb = "replace"
		}
		hs.set(event, append(kept, any(want)))
		actions = append(actions, fmt.Sprintf("%s hooks.%s: %s", verb, event, a.command(binary, event)))
	}
	return encode(doc), actions, nil
}

func (a jsonAgent) uninstall(text []byte) ([]byte, []string, error) {
	doc, err := parseObject(text)
	if err != nil {
		return nil, nil, unreadable(err)
	}
	hs, err := hooksOf(doc, false)
	if err != nil || hs == nil {
		return text, nil, err
	}
	var actions []string
	for _, event := range append([]string(nil), hs.keys...) {
		groups, err := groupsOf(hs, event)
		if err != nil {
			return nil, nil, err
		}
		kept, removed := a.strip(groups)
		if removed == 0 {
			continue
		}
		if len(kept) == 0 {
			hs.remove(event)
		} else {
			hs.set(event, kept)
		}
		actions = append(actions, fmt.Sprintf("remove paneherd's hook from hooks.%s", event))
	}
	if len(actions) > 0 && len(hs.keys) == 0 {
		doc.remove("hooks")
	}
	return encode(doc), actions, nil
}

func (a jsonAgent) status(text []byte, binary string) (bool, string, error) {
	doc, err := parseObject(text)
	if err != nil {
		return false, "", unreadable(err)
	}
	hs, err := hooksOf(doc, false)
	if err != nil {
		return false, "", err
	}
	var missing, elsewhere []string
	for _, event := range hooks.AgentEvents[a.name] {
		var groups []any
		if hs != nil {
			if groups, err = groupsOf(hs, event); err != nil {
				return false, "", err
			}
		}
		switch cmds := a.commands(groups); {
		case len(cmds) == 0:
			missing = append(missing, event)
		case !contains(cmds, a.command(binary, event)):
			elsewhere = append(elsewhere, cmds[0])
		}
	}
	return describe(a.name, len(hooks.AgentEvents[a.name]), missing, elsewhere)
}

// describe words a status from the events missing and the hooks that run another binary.
func describe(agent string, all int, missing, elsewhere []string) (bool, string, error) {
	again := "; run 'paneherd hooks install " + agent + "'"
	switch {
	case len(missing) == all:
		return false, "not installed", nil
	case len(missing) > 0:
		return false, "partly installed: no hook for " + strings.Join(missing, ", ") + again, nil
	case len(elsewhere) > 0:
		return false, "installed for another paneherd binary (" + elsewhere[0] + ")" + again + " to use this one", nil
	}
	return true, fmt.Sprintf("installed (%d hooks)", all), nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// groupsOf is the list of hook groups of one event.
func groupsOf(hs *object, event string) ([]any, error) {
	v, ok := hs.get(event)
	if !ok {
		return nil, nil
	}
	groups, ok := v.([]any)
	if !ok {
		return nil, unreadable(fmt.Errorf(`"hooks.%s" is not a list`, event))
	}
	return groups, nil
}

// strip removes paneherd's hooks from the groups: a group left with no hook because of
// that goes too; the user's hooks, and their groups, stay as they are.
func (a jsonAgent) strip(groups []any) (kept []any, removed int) {
	for _, g := range groups {
		entries, ok := entriesOf(g)
		if !ok {
			kept = append(kept, g)
			continue
		}
		var left []any
		for _, e := range entries {
			if a.isOurs(e) {
				removed++
			} else {
				left = append(left, e)
			}
		}
		switch {
		case len(left) == len(entries):
			kept = append(kept, g)
		case len(left) > 0:
			g.(*object).set("hooks", left)
			kept = append(kept, g)
		}
	}
	if kept == nil {
		kept = []any{}
	}
	return kept, removed
}

// commands lists the commands of paneherd's hooks in the groups.
func (a jsonAgent) commands(groups []any) []string {
	var cmds []string
	for _, g := range groups {
		entries, _ := entriesOf(g)
		for _, e := range entries {
			if a.isOurs(e) {
				cmds = append(cmds, commandOf(e))
			}
		}
	}
	return cmds
}

func entriesOf(g any) ([]any, bool) {
	o, ok := g.(*object)
	if !ok {
		return nil, false
	}
	v, _ := o.get("hooks")
	entries, ok := v.([]any)
	return entries, ok
}

func commandOf(e any) string {
	o, ok := e.(*object)
	if !ok {
		return ""
	}
	s, _ := o.vals["command"].(string)
	return s
}

func (a jsonAgent) isOurs(e any) bool {
	words, ok := splitWords(commandOf(e))
	return ok && ours(words, a.name)
}

func hasGroup(groups []any, want *object) bool {
	w := encode(want)
	for _, g := range groups {
		if bytes.Equal(encode(g), w) {
			return true
		}
	}
	return false
}
