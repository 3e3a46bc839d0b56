package shellwords

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// TestSplitAsAShellDoes checks each command line against the words sh itself gives
// printf: what Split accepts, a shell splits the same way.
func TestSplitAsAShellDoes(t *testing.T) {
	home := t.TempDir()
	lines := map[string]string{
		"one word":                 "prog",
		"blanks":                   "  prog   a\tb  ",
		"single and double quotes": `prog 'a b' "c d" 'it''s'`,
		"escapes in double quotes": `prog "a\"b" "a\\b" "a\$b" "a\` + "`" + `b" "a\xb"`,
		"backslashes outside":      `prog a\ b \'q\' \" \$x \*`,
		"empty words":              `prog '' "" x`,
		"tilde at a word's start":  "prog ~/bin ~ '~/x' \"~\"",
		"quoted syntax stays text": `prog 'a$b' "x*y" 'p|q;r' "(c) {d} [e] <f> ~g #h"`,
		"hash inside a word":       "prog a#b --x=#1",
		"assignment after prog":    "prog --title=x key=value",
		"quoted assignment":        `'FOO=bar' prog`,
		"continued lines":          "prog \"line1\\\nline2\" a\\\nb",
		"newline in quotes":        "prog 'two\nlines' \"and\nthese\"",
		"punctuation":              "prog !x %y ^z @w +v ,u :t ]s =r",
		"unicode":                  `prog ü "ß 😀" 'καλά'`,
	}
	for name, line := range lines {
		t.Run(name, func(t *testing.T) {
			got, err := Split(line, home)
			if err != nil {
				t.Fatalf("Split(%q): %v", line, err)
			}
			if want := shWords(t, line, home); !reflect.DeepEqual(got, want) {
				t.Errorf("Split(%q) = %q, sh gives %q", line, got, want)
			}
		})
	}
}

// shWords is what sh makes of line as the arguments of a command.
func shWords(t *testing.T, line, home string) []string {
	t.Helper()
	cmd := exec.Command("sh", "-c", `printf '%s\000' `+line)
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c printf %s: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

func TestSplitRefusesWhatAShellWouldDoMoreWith(t *testing.T) {
	lines := map[string]string{
		"variable":              "prog $HOME",
		"variable in quotes":    `prog "$HOME"`,
		"command substitution":  "prog $(touch x)",
		"backticks":             "prog `touch x`",
		"backticks in quotes":   "prog \"`touch x`\"",
		"glob star":             "prog *.txt",
		"glob question":         "prog a?",
		"glob class":            "prog [ab]",
		"braces":                "prog {a,b}",
		"list":                  "prog a; touch x",
		"background":            "prog &",
		"pipe":                  "prog | sh",
		"redirection out":       "prog >f",
		"redirection in":        "prog <f",
		"subshell":              "(prog)",
		"comment":               "prog #c",
		"second command":        "prog\ntouch x",
		"assignment":            "FOO=1 prog",
		"tilde of a user":       "prog ~root",
		"tilde inside a word":   "prog a~b",
		"single quote not shut": "prog 'open",
		"double quote not shut": `prog "open`,
		"ends with a backslash": `prog a\`,
	}
	for name, line := range lines {
		t.Run(name, func(t *testing.T) {
			words, err := Split(line, "/home/u")
			if err == nil {
				t.Fatalf("Split(%q) = %q, want an error", line, words)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}
