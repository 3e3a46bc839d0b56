package packs

import (
	"regexp"
	"strconv"

	"github.com/paneherd/paneherd/internal/state"
)

// The engine reads a screen as a person does: the present is at the bottom. Three rules
// hold for every pack, so pack authors need not repeat them (docs/inside.md, "States"):
//
//  1. A selection cursor in a numbered list ("❯ 1. Go", "› 1. Yes, proceed") is not the
//     input box, even when it starts with the input box's mark.
//  2. A dialog (a NEEDS_CONFIRMATION match) counts only when it is the bottom-most
//     interaction: when neither the input box nor the line a READY or EXITED rule matched
//     (a shell prompt back, the agent's goodbye) sits below it. The agent redrew itself after
//     the dialog closed; what is left above is history. A rule whose region is anchored
//     to the input box (above_input, input, below_input) describes the live area around
//     the box and is exempt: "Shell awaiting input" over the box is present.
//  3. An input box holding a slash command is found above its popup of commands, however
//     long the popup: the agent waits for its user to pick one.

// numberedItem is one item of a numbered list, after an optional box edge and one
// optional mark (a selection cursor or radio): "  2. Python", "│ ● 1. Allow once",
// "❯ 1. Go". Its group is the number.
var numberedItem = regexp.MustCompile(`^\s*(?:│\s*)?(?:[^\w\s]\s*)?(\d{1,2})[.)] +\S`)

// listNeighbourhood is how many non-empty lines above and below a selected item its
// neighbours may sit: a choice can carry a line of description under it.
const listNeighbourhood = 3

// listCursor reports whether line i is the selected item of a numbered list: a numbered
// item with the item before or after it in the list nearby.
func (v view) listCursor(i int) bool {
	n, ok := v.itemNumber(i)
	if !ok {
		return false
	}
	for j := max(0, i-listNeighbourhood); j < min(len(v.lines), i+listNeighbourhood+1); j++ {
		if m, ok := v.itemNumber(j); ok && j != i && (m == n-1 || m == n+1) {
			return true
		}
	}
	return false
}

// itemNumber is line i's number as a list item; the memo answers "is it one" for lines
// seen before, so a busy agent's frames pay the regexp once per new line.
func (v view) itemNumber(i int) (int, bool) {
	text := v.lines[i].Text
	if !v.memo.match(numberedItem, text) {
		return 0, false
	}
	m := numberedItem.FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// findInput sets v.input: the line under the cursor when tmux says the cursor is shown
// there and it looks like the input box (a popup of commands can push the box out of
// the pack's search), else the lowest line within the pack's search that looks like it.
// Numbered-list selections are skipped (rule 1).
func (p *Pack) findInput(v *view) {
	isInput := func(i int) bool {
		return v.memo.match(p.Input.Line.Regexp, v.lines[i].Text) && !v.listCursor(i)
	}
	if v.cursor >= 0 && isInput(v.cursor) {
		v.input = v.cursor
		return
	}
	for i := len(v.lines) - 1; i >= 0 && i >= len(v.lines)-p.Input.Search; i-- {
		if isInput(i) {
			v.input = i
			return
		}
	}
	p.findCommandInput(v, isInput)
}

// slashCommand is a command name being typed ("/", "/mo", "/add-dir"): the popup shows
// while the name is typed. A path typed at a shell prompt ("/usr/bin/make") is not one.
var slashCommand = regexp.MustCompile(`^/[\w:-]*$`)

// commandSearch is how far up a box holding a slash command is looked for: its popup of
// commands hangs below it, twenty rows in Claude Code.
const commandSearch = 40

// findCommandInput finds an input box holding a slash command ("❯ /", "> /mo") above
// its popup of commands, which can push the box out of the pack's search (rule 3). The
// box's text is the input pattern's first group, as for InputText.
func (p *Pack) findCommandInput(v *view, isInput func(int) bool) {
	for i := len(v.lines) - 1; i >= 0 && i >= len(v.lines)-commandSearch; i-- {
		if !isInput(i) {
			continue
		}
		if m := p.Input.Line.FindStringSubmatch(v.lines[i].Text); len(m) > 1 && slashCommand.MatchString(m[1]) {
			v.input = i
		}
		return // the lowest input-like line decides: a prompt in the transcript is history
	}
}

// anchored reports whether a region is placed relative to the input box.
func (r Region) anchored() bool {
	return r.Kind == RegionAboveInput || r.Kind == RegionBelowInput || r.Kind == RegionInput
}

// stale reports whether a dialog whose lowest line is bottom is history (rule 2), and
// what sits below it: "input box", or the READY or EXITED rule that matched there.
func (p *Pack) stale(v view, r *Rule, bottom int) (string, bool) {
	if r.State.State != state.NeedsConfirmation || r.Region.anchored() {
		return "", false
	}
	if v.input > bottom {
		return "input box", true
	}
	for i := range p.Rules {
		later := &p.Rules[i]
		if (later.State.State != state.Ready && later.State.State != state.Exited) || later.Region.anchored() {
			continue
		}
		if m, miss := later.apply(v); miss == fired && m.bottom > bottom {
			return "rule " + later.Name, true
		}
	}
	return "", false
}
