package screen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		wantText  []string
		wantTyped []string
	}{
		{"plain lines, trailing blanks trimmed", "a  \nb\n\n", []string{"a", "b"}, []string{"a", "b"}},
		{"SGR colours removed", "\x1b[38;5;246m❯\x1b[39m hi\x1b[0m", []string{"❯ hi"}, []string{"❯ hi"}},
		{"faint text is not typed", "› \x1b[2mAsk Codex\x1b[0m", []string{"› Ask Codex"}, []string{"›"}},
		{"faint continues across lines until reset", "\x1b[2mhint\nmore\x1b[22m typed", []string{"hint", "more typed"}, []string{"", "     typed"}},
		{"truecolour parameters are not attributes", "\x1b[38;2;2;2;2mx\x1b[0m", []string{"x"}, []string{"x"}},
		{"no-break space and tab read as spaces", "❯\u00a0go\tnow", []string{"❯ go now"}, []string{"❯ go now"}},
		{"OSC hyperlinks dropped", "\x1b]8;;http://x\x07link\x1b]8;;\x1b\\ end", []string{"link end"}, []string{"link end"}},
		{"controls and broken UTF-8 dropped", "a\x00\x07b\xff\xfec", []string{"abc"}, []string{"abc"}},
		{"escape cut at the end of a line", "abc\x1b[3", []string{"abc"}, []string{"abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse(tt.raw)
			var text, typed []string
			for _, l := range s.Lines {
				text = append(text, l.Text)
				typed = append(typed, l.Typed)
			}
			if strings.Join(text, "|") != strings.Join(tt.wantText, "|") {
				t.Errorf("Text = %q, want %q", text, tt.wantText)
			}
			if strings.Join(typed, "|") != strings.Join(tt.wantTyped, "|") {
				t.Errorf("Typed = %q, want %q", typed, tt.wantTyped)
			}
			if s.CursorY != -1 {
				t.Errorf("CursorY = %d, want -1 (unknown)", s.CursorY)
			}
		})
	}
}

func TestParseBoundsHugeInput(t *testing.T) {
	long := strings.Repeat("x", 3*MaxLineRunes)
	raw := strings.Repeat(long+"\n", 2*MaxLines) + "last"
	s := Parse(raw)
	if len(s.Lines) != MaxLines {
		t.Fatalf("%d lines kept, want %d", len(s.Lines), MaxLines)
	}
	if s.Lines[len(s.Lines)-1].Text != "last" {
		t.Errorf("the bottom of the screen was not kept")
	}
	if n := len([]rune(s.Lines[0].Text)); n != MaxLineRunes {
		t.Errorf("line of %d runes, want it cut to %d", n, MaxLineRunes)
	}
}

func TestTypedKeepsByteOffsets(t *testing.T) {
	s := Parse("❯ \x1b[2m✻é\x1b[0mtyped")
	l := s.Lines[0]
	if len(l.Text) != len(l.Typed) {
		t.Fatalf("Text %q and Typed %q differ in length", l.Text, l.Typed)
	}
	i := strings.Index(l.Text, "typed")
	if l.Typed[i:] != "typed" {
		t.Errorf("offset %d in Typed = %q", i, l.Typed[i:])
	}
}

// The shortcut for plain rows must read every row exactly as the full reading does.
func TestPlainRowsReadAsCleaned(t *testing.T) {
	files, _ := filepath.Glob("../../packs/testdata/fixtures/*/*.txt")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	rows := []string{"plain ascii   ", "box ─── ❯ prompt", "tab\there", "nbsp\u00a0x", "bad \xff utf8", "c1 \u0085 x", ""}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		rows = append(rows, strings.Split(string(b), "\n")...)
	}
	shortcuts := 0
	for _, row := range rows {
		if !plain(row) {
			continue
		}
		shortcuts++
		var fast, slow parser
		if got, want := fast.line(row), slow.clean(row); got != want {
			t.Errorf("row %q: shortcut %+v, full reading %+v", row, got, want)
		}
	}
	if shortcuts < len(files) {
		t.Errorf("only %d plain rows among %d: the shortcut is hardly ever taken", shortcuts, len(rows))
	}
}
