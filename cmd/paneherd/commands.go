package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// runFunc runs a command with the words after its name.
type runFunc func(ctx context.Context, e *env, args []string) error

// command is one of paneherd's commands, declared once beside its code: paneherd -h, its
// own -h, the shell completion scripts and docs/commands.md's table are made from it.
type command struct {
	name    string
	summary string // one line (paneherd -h, completion, docs/commands.md); none: paneherd runs it itself
	usage   string // its forms, one a line, each after "paneherd "
	about   string // what -h says between the forms and the flags
	more    string // what -h says after the flags
	link    string // docs/commands.md: a markdown link to the page that tells it in full
	// flags defines the command's flags on fs, each with its help, and returns the run
	// that parses them (parseFlags) and reads their values.
	flags func(fs *flag.FlagSet) runFunc
}

// noFlags is the flags of a command that takes none: -h anywhere still asks for its usage,
// and another flag is a mistake.
func noFlags(run runFunc) func(*flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		return func(ctx context.Context, e *env, args []string) error {
			rest, err := parseFlags(fs, args)
			if err != nil {
				return err
			}
			return run(ctx, e, rest)
		}
	}
}

// rawArgs is the flags of a command run by programs, whose words it takes as they come.
func rawArgs(run runFunc) func(*flag.FlagSet) runFunc {
	return func(*flag.FlagSet) runFunc { return run }
}

// commands are paneherd's commands, in docs/commands.md's order. The list is made in init:
// completion, one of them, reads it, and a variable cannot start as a value that reads
// itself.
var commands []command

func init() {
	commands = []command{cmdWatch, cmdStatus, cmdClassify, cmdRecord, cmdPacks,
		cmdStart, cmdStop, cmdRestart, cmdMenu, cmdJump, cmdDemo,
		cmdSend, cmdApprove, cmdDeny, cmdWait, cmdHistory, cmdCreate,
		cmdWorkers, cmdRetire, cmdSwitch, cmdFollow, cmdHosts, cmdMCP, cmdHooks, cmdNotify,
		cmdPolicy, cmdCompletion, cmdDoctor, cmdMetrics, cmdVersion, cmdBar,
		cmdPlugin, cmdHook, cmdDemoWorker}
}

// commandNamed is the command called name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func byName(a, b command) int { return strings.Compare(a.name, b.name) }

// flagSet is the command's flags, defined, and the run that reads them.
func (c command) flagSet() (*flag.FlagSet, runFunc) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	return fs, c.flags(fs)
}

// forms are the command's forms, each a whole command line.
func (c command) forms() []string {
	lines := strings.Split(c.usage, "\n")
	for i, l := range lines {
		lines[i] = "paneherd " + l
	}
	return lines
}

// helpWidth is the width -h's text is wrapped to.
const helpWidth = 90

// help is what `paneherd NAME -h` prints: the forms, what the command does (written
// wrapped, as it shows), its flags.
func (c command) help() string {
	fs, _ := c.flagSet()
	var b strings.Builder
	for i, form := range c.forms() {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		words := formWords(form)
		words[0] = lead + words[0]
		b.WriteString(fill(words, helpWidth, strings.Repeat(" ", len(lead+"paneherd "+c.name+" "))) + "\n")
	}
	for _, part := range []string{wrap(c.about, helpWidth), flagList(fs), wrap(c.more, helpWidth)} {
		if part = strings.Trim(part, "\n"); part != "" {
			b.WriteString("\n" + part + "\n")
		}
	}
	return b.String()
}

// formWords are a form's words; a bracketed part is one.
func formWords(form string) []string {
	var words []string
	depth, start := 0, 0
	for i, r := range form {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == ' ' && depth == 0:
			words = append(words, form[start:i])
			start = i + 1
		}
	}
	return append(words, form[start:])
}

// flagList is -h's list of flags: a line each, the flag and the name of its value, then its
// help, wrapped in a column of its own.
func flagList(fs *flag.FlagSet) string {
	var names, helps []string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		value, help := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if value != "" {
			name += " " + value
		}
		names, helps = append(names, name), append(helps, help)
		width = max(width, len(name))
	})
	indent := strings.Repeat(" ", 2+width+3)
	var b strings.Builder
	for i, name := range names {
		help := strings.ReplaceAll(wrap(helps[i], helpWidth-len(indent)), "\n", "\n"+indent)
		fmt.Fprintf(&b, "  %-*s   %s\n", width, name, help)
	}
	return b.String()
}

// wrap breaks each line of text longer than width between words; the lines it makes keep
// the line's indentation.
func wrap(text string, width int) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if utf8.RuneCountInString(line) > width {
			words := strings.Fields(line)
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			words[0] = indent + words[0]
			lines[i] = fill(words, width, indent)
		}
	}
	return strings.Join(lines, "\n")
}

// fill puts words on lines of at most width (a longer word has one to itself), the lines
// after the first starting with indent.
func fill(words []string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range words {
		switch {
		case i == 0:
		case n+1+utf8.RuneCountInString(w) > width:
			b.WriteString("\n" + indent)
			n = len(indent)
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += utf8.RuneCountInString(w)
	}
	return b.String()
}

const globalUsage = `usage: paneherd [-L NAME | -S PATH] COMMAND [ARGS]

  -L NAME   use the tmux server with socket name NAME (as tmux -L)
  -S PATH   use the tmux server at socket PATH (as tmux -S)
            default: the server of $TMUX, else tmux's default server
  --version print the version (also -V, or the command version)

commands:
`

// usage is what `paneherd -h` prints: the global flags and a line per command, by name.
func usage() string {
	var b strings.Builder
	b.WriteString(globalUsage)
	for _, c := range slices.SortedFunc(slices.Values(commands), byName) {
		if c.summary != "" {
			b.WriteString("  " + c.name + strings.Repeat(" ", 12-len(c.name)) + c.summary + "\n")
		}
	}
	b.WriteString("\nRun 'paneherd COMMAND -h' for a command's flags.\n")
	return b.String()
}
