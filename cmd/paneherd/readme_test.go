package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// documents are the README and the pages of docs/, from this package's directory (where
// tests run): what a user reads and copies from.
func documents(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no page in docs/: %v", err)
	}
	return append([]string{"../../README.md"}, pages...)
}

// codeBlock is a fenced block of a document: its file, language and first line's number.
type codeBlock struct {
	file string
	lang string
	line int
	text string
}

// where names a block as an editor does: file:line, from the repository's root.
func (b codeBlock) where() string {
	return fmt.Sprintf("%s:%d", strings.TrimPrefix(b.file, "../../"), b.line)
}

func documentBlocks(t *testing.T) []codeBlock {
	t.Helper()
	var blocks []codeBlock
	for _, path := range documents(t) {
		blocks = append(blocks, fileBlocks(t, path)...)
	}
	return blocks
}

func fileBlocks(t *testing.T, path string) []codeBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []codeBlock
	var open *codeBlock
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case open == nil && strings.HasPrefix(line, "```"):
			open = &codeBlock{file: path, lang: strings.TrimPrefix(line, "```"), line: n + 1}
		case open != nil && line == "```":
			blocks = append(blocks, *open)
			open = nil
		case open != nil:
			open.text += line + "\n"
		}
	}
	if open != nil {
		t.Fatalf("%s: code block never closed", open.where())
	}
	return blocks
}

// Every TOML example in the documents is a pack `paneherd packs check` accepts, or a
// policy (its rules have actions) `paneherd policy check` accepts.
func TestReadmePackExamples(t *testing.T) {
	found := 0
	for _, b := range documentBlocks(t) {
		if b.lang != "toml" {
			continue
		}
		found++
		t.Run(b.where(), func(t *testing.T) {
			e, dir := packsEnv(t)
			path := filepath.Join(dir, "example.toml")
			if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			kind := "packs"
			if strings.Contains(b.text, "\naction = ") {
				kind = "policy"
			}
			if code, stderr := runWith(e, &stdout, kind, "check", path); code != exitOK {
				t.Errorf("%s check: exit %d: %s", kind, code, stderr)
			}
		})
	}
	if found == 0 {
		t.Fatal("no toml block in the README or docs/")
	}
}

// Every paneherd command line in the documents' code blocks names a command, subcommand and
// flags that exist: with -h after them, paneherd reads the whole line and prints the usage
// instead of running it.
func TestReadmeCommandLines(t *testing.T) {
	found := 0
	for _, b := range documentBlocks(t) {
		if b.lang == "toml" {
			continue
		}
		for i, line := range strings.Split(b.text, "\n") {
			for _, args := range paneherdCalls(line) {
				found++
				t.Run(fmt.Sprintf("%s:%d %s", strings.TrimPrefix(b.file, "../../"), b.line+i, strings.Join(args, " ")), func(t *testing.T) {
					checkCommandLine(t, args)
				})
			}
		}
	}
	if found == 0 {
		t.Fatal("no paneherd command line in the README or docs/")
	}
}

func checkCommandLine(t *testing.T, args []string) {
	e, _ := packsEnv(t)
	// Should a command ever run despite -h, it finds no tmux server but a private one.
	tmpdir := t.TempDir()
	getenv := e.getenv
	e.getenv = func(k string) string {
		if k == "TMUX_TMPDIR" {
			return tmpdir
		}
		return getenv(k)
	}
	var stdout bytes.Buffer
	withHelp := append(slices.Clone(args), "-h")
	if i := slices.Index(args, "--"); i >= 0 {
		// What follows -- is a command of the person's own (create): -h goes before it.
		withHelp = slices.Concat(args[:i], []string{"-h"}, args[i:])
	}
	code, stderr := runWith(e, &stdout, withHelp...)
	if code != exitOK || !strings.HasPrefix(stdout.String(), "usage: paneherd") {
		t.Errorf("paneherd %s -h: exit %d, want 0 and the usage:\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr)
	}
}

// paneherdCalls returns the arguments of each call of paneherd (or a path ending in
// /paneherd) on a shell line: commands are split at ;, &, |, && and ||, and a redirection
// takes its target along.
func paneherdCalls(line string) [][]string {
	var calls [][]string
	var cmd []string
	end := func() {
		if len(cmd) > 0 && filepath.Base(cmd[0]) == "paneherd" {
			calls = append(calls, cmd[1:])
		}
		cmd = nil
	}
	words := shellWords(line)
	for i := 0; i < len(words); i++ {
		switch w := words[i]; {
		case w == ";" || w == "&" || w == "|" || w == "&&" || w == "||":
			end()
		case strings.TrimLeft(w, "0123456789") == ">" || w == ">>" || w == "<" || strings.HasSuffix(w, ">&"):
			i++ // the redirection's target
		default:
			cmd = append(cmd, w)
		}
	}
	end()
	return calls
}

// shellWords splits a line into words and operators, as sh does for the simple lines a
// README shows (no expansions). Operators are words of their own; quoted text never is one;
// a # starting a word starts a comment.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return words
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				j = len(line) - i - 1
			}
			w.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case strings.IndexByte(";&|<>", c) >= 0:
			op := string(c)
			if i+1 < len(line) && (line[i+1] == c || (c == '>' && line[i+1] == '&')) {
				op += string(line[i+1])
				i++
			}
			if digits := w.String(); inWord && strings.Trim(digits, "0123456789") == "" && (c == '>' || c == '<') {
				op = digits + op // 2> is one operator
				w.Reset()
				inWord = false
			}
			flush()
			words = append(words, op)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

func TestPaneherdCalls(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"./install.sh && bin/paneherd demo      # build, then see it", "[[demo]]"},
		{"bin/paneherd packs show --builtin claude > ~/.config/paneherd/packs/claude.toml", "[[packs show --builtin claude]]"},
		{"paneherd status --json 2>/dev/null | jq '.panes[0]'; paneherd wait w1", "[[status --json] [wait w1]]"},
		{`paneherd send w1 "fix the #3 bug; then stop"`, "[[send w1 fix the #3 bug; then stop]]"},
		{"paneherd send w1 '#{x}' # a comment", "[[send w1 #{x}]]"},
		{"tmux capture-pane -p -e -t %3 > screen.txt", "[]"},
		{"set -g @plugin 'paneherd/paneherd'", "[]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(paneherdCalls(tt.line)); got != tt.want {
			t.Errorf("paneherdCalls(%q) = %s, want %s", tt.line, got, tt.want)
		}
	}
}

// Every command answers -h with its usage on stdout and exit 0, as people expect of a CLI.
func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands {
		name := c.name
		for _, help := range []string{"-h", "--help"} {
			t.Run(name+" "+help, func(t *testing.T) {
				e, _ := packsEnv(t)
				var stdout bytes.Buffer
				code, stderr := runWith(e, &stdout, name, help)
				if code != exitOK || !strings.HasPrefix(stdout.String(), "usage: paneherd") || !strings.Contains(stdout.String(), name) {
					t.Errorf("paneherd %s %s: exit %d, want 0 and its usage:\n%s%s", name, help, code, stdout.String(), stderr)
				}
			})
		}
	}
}
