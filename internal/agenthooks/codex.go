package agenthooks

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/paneherd/paneherd/hooks"
)

// codexAgent is Codex CLI: `notify = ["program", "arg", ...]` at the top level of
// config.toml; Codex runs the program with the event's JSON as one more argument. Only
// the notify line is edited, as text, so the user's comments and layout survive; the
// result is parsed again and must say what the file said, plus or minus notify.
type codexAgent struct{}

// codexEvent is the word paneherd's notify command ends with; the event's type comes in
// the JSON.
const codexEvent = "notify"

// notifyComment marks the line as paneherd's for a person reading the file.
const notifyComment = "  # paneherd: 'paneherd hooks uninstall codex' removes this line"

func (codexAgent) line(binary string) string {
	words := append([]string{binary}, hookWords(hooks.Codex, codexEvent)...)
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = tomlString(w)
	}
	return "notify = [" + strings.Join(quoted, ", ") + "]" + notifyComment
}

// tomlString quotes s as a TOML basic string (its escapes are JSON's).
func tomlString(s string) string { return scalar(s) }

func (codexAgent) parse(text []byte) (map[string]any, error) {
	doc := map[string]any{}
	if _, err := toml.Decode(string(text), &doc); err != nil {
		return nil, unreadable(err)
	}
	return doc, nil
}

// notifyOf is the notify command, nil when there is none.
func notifyOf(doc map[string]any) ([]string, error) {
	v, ok := doc["notify"]
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, unreadable(fmt.Errorf("notify is not a list of strings"))
	}
	words := make([]string, len(list))
	for i, w := range list {
		if words[i], ok = w.(string); !ok {
			return nil, unreadable(fmt.Errorf("notify is not a list of strings"))
		}
	}
	return words, nil
}

func (c codexAgent) install(text []byte, binary string) ([]byte, []string, error) {
	doc, err := c.parse(text)
	if err != nil {
		return nil, nil, err
	}
	have, err := notifyOf(doc)
	if err != nil {
		return nil, nil, err
	}
	want := append([]string{binary}, hookWords(hooks.Codex, codexEvent)...)
	lines := splitLines(text)
	switch {
	case have == nil:
		at := firstSetting(lines)
		lines = append(lines[:at], append([]string{c.line(binary)}, lines[at:]...)...)
	case reflect.DeepEqual(have, want):
		return text, nil, nil
	case !ours(have, hooks.Codex):
		return nil, nil, foreignNotify(have, binary)
	default:
		from, to, err := notifySpan(lines)
		if err != nil {
			return nil, nil, err
		}
		lines = append(lines[:from], append([]string{c.line(binary)}, lines[to:]...)...)
	}
	out := joinLines(lines)
	if err := c.verify(doc, out, want); err != nil {
		return nil, nil, err
	}
	verb := "add"
	if have != nil {
		verb = "replace"
	}
	return out, []string{verb + " notify = " + shellWords(want)}, nil
}

func foreignNotify(have []string, binary string) error {
	return fmt.Errorf("%w: notify = %s. Codex runs a single notify program, and paneherd will not replace yours. "+
		"Either remove that line (keep a copy) and run this again, or have your program also run: %s '<the JSON Codex passes>'",
		ErrForeignNotify, shellWords(have), shellWords(append([]string{binary}, hookWords(hooks.Codex, codexEvent)...)))
}

func (c codexAgent) uninstall(text []byte) ([]byte, []string, error) {
	doc, err := c.parse(text)
	if err != nil {
		return nil, nil, err
	}
	have, err := notifyOf(doc)
	if err != nil || have == nil || !ours(have, hooks.Codex) {
		return text, nil, err
	}
	lines := splitLines(text)
	from, to, err := notifySpan(lines)
	if err != nil {
		return nil, nil, err
	}
	out := joinLines(append(lines[:from], lines[to:]...))
	if err := c.verify(doc, out, nil); err != nil {
		return nil, nil, err
	}
	return out, []string{"remove notify = " + shellWords(have)}, nil
}

func (c codexAgent) status(text []byte, binary string) (bool, string, error) {
	doc, err := c.parse(text)
	if err != nil {
		return false, "", err
	}
	have, err := notifyOf(doc)
	switch {
	case err != nil:
		return false, "", err
	case have == nil:
		return false, "not installed", nil
	case !ours(have, hooks.Codex):
		return false, "not installed: notify runs another program (" + shellWords(have) + ")", nil
	case have[0] != binary:
		return describe(hooks.Codex, 1, nil, []string{have[0]})
	}
	return true, "installed (notify)", nil
}

// verify parses the edited text: every setting but notify must be as before, and notify
// what was meant (nil: none). A textual edit that went wrong is refused, not written.
func (c codexAgent) verify(before map[string]any, text []byte, notify []string) error {
	after, err := c.parse(text)
	if err == nil {
		var got []string
		got, err = notifyOf(after)
		if err == nil && !reflect.DeepEqual(got, notify) {
			err = fmt.Errorf("notify reads %q after the edit", got)
		}
	}
	if err == nil {
		b, a := without(before, "notify"), without(after, "notify")
		if !reflect.DeepEqual(b, a) {
			err = fmt.Errorf("other settings changed with the edit")
		}
	}
	if err != nil {
		return fmt.Errorf("agenthooks: editing the notify line went wrong (%v); nothing was written: set notify by hand", err)
	}
	return nil
}

func without(doc map[string]any, key string) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != key {
			out[k] = v
		}
	}
	return out
}

var (
	tableHeader = regexp.MustCompile(`^\s*\[`)
	notifyKey   = regexp.MustCompile(`^\s*("notify"|'notify'|notify)\s*=`)
	settingLine = regexp.MustCompile(`^\s*[^#\s]`)
)

// firstSetting is the index of the first line that is neither blank nor a comment: a new
// top-level key goes there (before any [table], and after the file's opening comments).
func firstSetting(lines []string) int {
	for i, l := range lines {
		if settingLine.MatchString(l) {
			return i
		}
	}
	return len(lines)
}

// notifySpan finds the top-level notify assignment: the lines [from, to) from its key to
// the end of its value, which may span lines (an array written one word a line).
func notifySpan(lines []string) (int, int, error) {
	for i, l := range lines {
		if tableHeader.MatchString(l) {
			break
		}
		if !notifyKey.MatchString(l) {
			continue
		}
		for j := i + 1; j <= len(lines); j++ {
			doc := map[string]any{}
			if _, err := toml.Decode(strings.Join(lines[i:j], "\n"), &doc); err == nil {
				return i, j, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("agenthooks: could not find the notify line to edit (nothing was written): edit notify by hand")
}

func splitLines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
}

func joinLines(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
