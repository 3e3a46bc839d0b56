package main

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/docsection"
)

var update = flag.Bool("update", false, "rewrite docs/commands.md's table of commands")

// eachFlag calls fn for every flag of every command.
func eachFlag(fn func(c command, f *flag.Flag)) {
	for _, c := range commands {
		fs, _ := c.flagSet()
		fs.VisitAll(func(f *flag.Flag) { fn(c, f) })
	}
}

// TestEveryFlagSaysWhatItDoes: a flag's help says what it does, names its value (a
// backquoted word: `F`), and gives its default when it has one.
func TestEveryFlagSaysWhatItDoes(t *testing.T) {
	eachFlag(func(c command, f *flag.Flag) {
		if strings.TrimSpace(f.Usage) == "" {
			t.Errorf("%s --%s has no help", c.name, f.Name)
			return
		}
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool && strings.Count(f.Usage, "`") != 2 {
			t.Errorf("%s --%s: its help names no value in backquotes: %q", c.name, f.Name, f.Usage)
		}
		if def := shortDefault(f.DefValue); def != "" && !strings.Contains(f.Usage, "default "+def) {
			t.Errorf("%s --%s: its help does not give its default %q: %q", c.name, f.Name, def, f.Usage)
		}
	})
}

// shortDefault is a default as help gives it ("10m", not "10m0s"); "" for a zero value.
func shortDefault(def string) string {
	switch def {
	case "", "0", "false", "0s":
		return ""
	}
	if strings.HasSuffix(def, "m0s") {
		def = strings.TrimSuffix(def, "0s")
	}
	if strings.HasSuffix(def, "h0m") {
		def = strings.TrimSuffix(def, "0m")
	}
	return def
}

// TestHelpListsEveryFlag: each command's -h lists every flag it takes, in at most
// helpWidth columns, and its forms name only flags it takes.
func TestHelpListsEveryFlag(t *testing.T) {
	eachFlag(func(c command, f *flag.Flag) {
		if !regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(c.help()) {
			t.Errorf("paneherd %s -h does not list --%s:\n%s", c.name, f.Name, c.help())
		}
	})
	for _, c := range commands {
		fs, _ := c.flagSet()
		for _, form := range c.forms() {
			if !strings.HasPrefix(form, "paneherd "+c.name) {
				t.Errorf("%s: the form %q does not start with its name", c.name, form)
			}
			for _, named := range regexp.MustCompile(`--([a-z][a-z-]*)`).FindAllStringSubmatch(form, -1) {
				if fs.Lookup(named[1]) == nil {
					t.Errorf("%s: the form %q names --%s, which it does not take", c.name, form, named[1])
				}
			}
		}
		for _, line := range strings.Split(c.help(), "\n") {
			if utf8.RuneCountInString(line) > helpWidth {
				t.Errorf("paneherd %s -h: a line wider than %d: %q", c.name, helpWidth, line)
			}
		}
	}
}

// commandTable is docs/commands.md's table: a row per command a person runs, in the
// order of commands.
func commandTable() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, c := range commands {
		if c.summary == "" {
			continue
		}
		forms := c.forms()
		for i, f := range forms {
			forms[i] = "`" + cell(f) + "`"
		}
		what := cell(c.summary)
		if c.link != "" {
			what += " (" + c.link + ")"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(forms, ", "), what)
	}
	return b.String()
}

// TestDocsShowTheCommandTable keeps docs/commands.md's table the one the commands declare.
func TestDocsShowTheCommandTable(t *testing.T) {
	docsection.Block{
		Page:  "../../docs/commands.md",
		Begin: "<!-- commands: made by cmd/paneherd (go test ./cmd/paneherd -run TestDocsShowTheCommandTable -update) -->\n",
		End:   "<!-- end of commands -->\n",
	}.Check(t, commandTable(), *update)
}
