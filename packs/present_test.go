package packs

import (
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

// presentPack has an input box marked "❯", a dialog rule looking at the last lines, a
// status rule anchored over the box, and a shell prompt that means the agent quit.
const presentPack = `
[input]
line = '^❯(?: (.*))?$'
[[rules]]
name = "dialog"
state = "NEEDS_CONFIRMATION"
choices = ["approve"]
approve = ["1"]
region = "last:12"
match = 'Do you trust this folder\?'
require = '^\s*(?:❯ )?\d+\. '
[[rules]]
name = "awaiting"
state = "NEEDS_CONFIRMATION"
region = "above_input:2"
match = 'awaiting input'
[[rules]]
name = "prompt-back"
state = "READY"
region = "last:1"
match = '^\$$'
[[rules]]
name = "box"
state = "READY"
region = "input"
match = '^❯'
`

func TestThePresentIsAtTheBottom(t *testing.T) {
	p := parsePack(t, presentPack)
	tests := []struct {
		name   string
		screen string
		cursor int // row of the cursor; -1 unknown
		rule   string
		input  int // index into the pack's lines of the input box; -1 none
	}{
		{"live dialog in the box's place", "❯ hello\nanswer\nDo you trust this folder?\n❯ 1. Yes\n  2. No", -1, "dialog", 0},
		{"stale dialog above a fresh box", "Do you trust this folder?\n❯ 1. Yes\n  2. No\nrestarting...\n❯", -1, "box", 4},
		{"stale dialog above a shell prompt", "Do you trust this folder?\n❯ 1. Yes\n  2. No\nbye\n$", -1, "prompt-back", -1},
		{"selected choice last in the list", "❯ hello\nDo you trust this folder?\n  1. Yes\n❯ 2. No", -1, "dialog", 0},
		{"an item with a description between", "❯ hi\nDo you trust this folder?\n❯ 1. Yes\n   it runs code\n  2. No", -1, "dialog", 0},
		{"typed text that looks like a list item", "answer\n❯ 1. fix the bug", -1, "box", 1},
		{"status over the box is present", "transcript\nawaiting input\n❯", -1, "awaiting", 2},
		{"cursor row beats the search", "❯ old prompt\n❯ /\n a\n b\n c\n d\n e\n f\n g\n h\n i", 1, "box", 1},
		{"a path typed at an old prompt is no slash command", "❯ /usr/bin/make\n a\n b\n c\n d\n e\n f\n g\n h\n i", -1, "", -1},
		{"slash command above its popup", "❯ old prompt\n❯ /mo\n a\n b\n c\n d\n e\n f\n g\n h\n i", -1, "box", 1},
		{"cursor on a list selection is not the box", "❯ hi\nDo you trust this folder?\n❯ 1. Yes\n  2. No", 2, "dialog", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := screen.Parse(tt.screen)
			sc.CursorY = tt.cursor
			got := p.Classify(sc)
			if got.Rule != tt.rule {
				t.Errorf("rule %q (%s), want %q\n%s", got.Rule, got.State, tt.rule, explained(p, sc))
			}
			if ex := p.Explain(sc); ex.Input != tt.input {
				t.Errorf("input box at %d, want %d", ex.Input, tt.input)
			}
		})
	}
}

// TestExplainAgreesWithClassify: explain is the same reading, with reasons.
func TestExplainAgreesWithClassify(t *testing.T) {
	set := builtinSet(t)
	for _, f := range labelledFixtures(t) {
		sc := readScreen(t, fixturesDir+"/"+f.path)
		pk := mustPack(t, set, f.pack)
		got, ex := pk.Classify(sc), pk.Explain(sc)
		if got != ex.Result {
			t.Errorf("%s: classify %+v, explain %+v", f.path, got, ex.Result)
		}
		if len(ex.Rules) != len(pk.Rules) {
			t.Errorf("%s: %d verdicts for %d rules", f.path, len(ex.Rules), len(pk.Rules))
		}
	}
}

func TestExplainNamesTheStaleDialog(t *testing.T) {
	p := parsePack(t, presentPack)
	sc := screen.Parse("Do you trust this folder?\n❯ 1. Yes\n  2. No\nrestarting...\n❯")
	var b strings.Builder
	p.Explain(sc).Print(&b)
	for _, want := range []string{"stale: below it sits the input box", "stale-dialog", "input", "box  "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, b.String())
		}
	}
	if got := p.Classify(sc); got.State != state.Ready {
		t.Errorf("state %s, want READY", got.State)
	}
}

func explained(p *Pack, sc screen.Screen) string {
	var b strings.Builder
	p.Explain(sc).Print(&b)
	return b.String()
}

// TestMatchFingerprintsTheDialog: what approve compares between its two looks changes
// when the dialog does (the selection moved) and not when something else on screen does.
func TestMatchFingerprintsTheDialog(t *testing.T) {
	p := parsePack(t, presentPack)
	read := func(s string) Result { return p.Classify(screen.Parse(s)) }
	first := read("❯ hi\nclock 10:01\nDo you trust this folder?\n❯ 1. Yes\n  2. No")
	if first.State != state.NeedsConfirmation || first.Match == 0 {
		t.Fatalf("%+v: want a dialog with its fingerprint", first)
	}
	if other := read("❯ hi\nclock 10:02\nDo you trust this folder?\n❯ 1. Yes\n  2. No"); other.Match != first.Match {
		t.Errorf("the clock above the dialog moved its fingerprint")
	}
	if moved := read("❯ hi\nclock 10:01\nDo you trust this folder?\n  1. Yes\n❯ 2. No"); moved.Match == first.Match {
		t.Errorf("the selection moved, the fingerprint did not")
	}
	if ready := read("❯ hi"); ready.Match != 0 {
		t.Errorf("a READY screen has a dialog fingerprint")
	}
}

// TestExplainSaysWhatNearlyMatched: a dialog grown taller than its rule's region, a
// dialog whose choices lost their numbers, and how the box was found are what a pack
// author needs to see when a new version moved things.
func TestExplainSaysWhatNearlyMatched(t *testing.T) {
	p := parsePack(t, presentPack)
	tall := "❯ hi\nDo you trust this folder?\n❯ 1. Yes\n" + strings.Repeat("  more words\n", 12) + "  2. No"
	unnumbered := "❯ hi\nDo you trust this folder?\n❯ Yes\n  No"
	tests := []struct {
		name, screen string
		want         []string
	}{
		{"match above its region", tall, []string{"near: its match fits line 1, outside its region", "region lines 4-15"}},
		{"require missing", unnumbered, []string{"near: require `^\\s*(?:❯ )?\\d+\\. ` fits no line"}},
		{"input found", unnumbered, []string{"input:   line 2, the lowest of the last"}},
		{"no input", "Do you trust this folder?", []string{"input:   none: no line of the last"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := explained(p, screen.Parse(tt.screen))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("explanation lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
