package packs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

func parsePack(t *testing.T, src string) *Pack {
	t.Helper()
	p, err := Parse("test", "test.toml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

// boxScreen is a small agent-like screen: transcript, an input box between rules, a footer.
const boxScreen = `old line
> first prompt
answer one
STATUS working
────────
> draft text
────────
footer hint
permanent footer`

const regionPack = `
ignore = '^permanent footer$'
[input]
line = '^> ?(.*)$'
[[rules]]
name = "above"
state = "BUSY"
region = "above_input:2"
match = '^STATUS'
[[rules]]
name = "below"
state = "ERROR"
region = "below_input"
match = '^footer hint$'
[[rules]]
name = "input"
state = "READY"
region = "input"
match = '^> '
`

func TestRegions(t *testing.T) {
	tests := []struct {
		name   string
		region string
		match  string
		fires  bool
	}{
		{"screen sees the top", "screen", "^old line$", true},
		{"last:1 sees the last kept line", "last:1", "^footer hint$", true},
		{"ignored lines are dropped before counting", "last:1", "^permanent footer$", false},
		{"last:2 stops short of the box", "last:2", "^draft text$|^> draft", false},
		{"last:3 reaches the rule", "last:3", "^─+$", true},
		{"above_input:2 is the rule and the status", "above_input:2", "^STATUS", true},
		{"above_input:2 stops before older lines", "above_input:2", "^answer one$", false},
		{"above_input excludes the input line", "above_input:5", "^> draft", false},
		{"below_input sees the footer", "below_input", "^footer hint$", true},
		{"below_input excludes the input line", "below_input", "^> draft", false},
		{"input is the lowest input-like line", "input", "^> draft text$", true},
		{"input is only that line", "input", "^> first prompt$", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parsePack(t, `
ignore = '^permanent footer$'
[input]
line = '^> ?(.*)$'
[[rules]]
name = "r"
state = "BUSY"
region = "`+tt.region+`"
match = '`+tt.match+`'
`)
			got := p.Classify(screen.Parse(boxScreen)).State == state.Busy
			if got != tt.fires {
				t.Errorf("fires = %v, want %v", got, tt.fires)
			}
		})
	}
}

func TestRegionsNeedAnInputBox(t *testing.T) {
	p := parsePack(t, regionPack)
	noBox := screen.Parse("just output\nSTATUS working\nfooter hint")
	if got := p.Classify(noBox); got.State != state.Unknown {
		t.Errorf("without an input box got %s (rule %q), want UNKNOWN", got.State, got.Rule)
	}
}

func TestPrecedence(t *testing.T) {
	// Written in reverse order of precedence: order among states must not matter.
	p := parsePack(t, `
[[rules]]
name = "ready"
state = "READY"
match = 'R'
[[rules]]
name = "error"
state = "ERROR"
match = 'E'
[[rules]]
name = "busy"
state = "BUSY"
match = 'B'
[[rules]]
name = "busy-too"
state = "BUSY"
match = 'B'
[[rules]]
name = "confirm"
state = "NEEDS_CONFIRMATION"
match = 'N'
`)
	tests := []struct {
		text string
		rule string
	}{
		{"R", "ready"},
		{"R\nE", "error"},
		{"E\nB\nR", "busy"},
		{"R\nE\nB\nN", "confirm"},
		// A READY line below the dialog: the agent came back after it closed.
		{"N\nE\nB\nR", "busy"},
		{"nothing", ""},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.text, "\n", "+"), func(t *testing.T) {
			if got := p.Classify(screen.Parse(tt.text)); got.Rule != tt.rule {
				t.Errorf("rule %q (%s), want %q", got.Rule, got.State, tt.rule)
			}
		})
	}
}

func TestRequireUnless(t *testing.T) {
	p := parsePack(t, `
[[rules]]
name = "dialog"
state = "NEEDS_CONFIRMATION"
region = "last:4"
match = 'Proceed\?'
require = ['^1\. Yes', '^2\. No']
unless = 'cancelled'
`)
	tests := []struct {
		name string
		text string
		want state.State
	}{
		{"all required lines there", "Proceed?\n1. Yes\n2. No", state.NeedsConfirmation},
		{"a required line missing", "Proceed?\n1. Yes", state.Unknown},
		{"required line outside the region", "1. Yes\n2. No\na\nb\nProceed?", state.Unknown},
		{"unless vetoes", "Proceed?\n1. Yes\n2. No\ncancelled", state.Unknown},
		{"unless outside the region does not veto", "cancelled\nx\nProceed?\n1. Yes\n2. No", state.NeedsConfirmation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Classify(screen.Parse(tt.text)); got.State != tt.want {
				t.Errorf("got %s, want %s", got.State, tt.want)
			}
		})
	}
}

func TestSince(t *testing.T) {
	p := parsePack(t, `
[input]
line = '^> ?(.*)$'
[[rules]]
name = "failed"
state = "ERROR"
region = "above_input:10"
since = '^> \S'
match = '^ERR '
unless = '^cancelled'
summary = '^ERR (?P<summary>.+)'
`)
	tests := []struct {
		name string
		text string
		want state.State
	}{
		{"error in the last turn", "> go\nERR boom\n> ", state.Error},
		{"error in an older turn is history", "> go\nERR boom\n> again\nfine\n> ", state.Unknown},
		{"no prompt in the region keeps it whole", "ERR boom\nmore\n> ", state.Error},
		{"the input line itself is not the since line", "> go\nERR boom\n> typed", state.Error},
		{"unless counts only within the turn", "cancelled\n> go\nERR boom\n> ", state.Error},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Classify(screen.Parse(tt.text)); got.State != tt.want {
				t.Errorf("got %s (%q), want %s", got.State, got.Summary, tt.want)
			}
		})
	}
}

func TestUnlessBelow(t *testing.T) {
	p := parsePack(t, `
[input]
line = '^> ?(.*)$'
[[rules]]
name = "working"
state = "BUSY"
region = "above_input:10"
match = '^\* \w+ing…$'
unless_below = '^\* \w+ed for \d+s$'
`)
	tests := []struct {
		name string
		text string
		want state.State
	}{
		{"spinner over the box", "> go\n* Working…\n> ", state.Busy},
		{"a finished turn below it makes it history", "> go\n* Working…\n* Worked for 3s\n> ", state.Unknown},
		{"a finished turn above it does not", "* Worked for 3s\n> again\n* Working…\n> ", state.Busy},
		{"the lowest match decides", "* Working…\n* Worked for 3s\n> again\n* Working…\n> ", state.Busy},
		{"below the region it does not count", "> go\n* Working…\n> \n* Worked for 3s", state.Busy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Classify(screen.Parse(tt.text)); got.State != tt.want {
				t.Errorf("got %s, want %s", got.State, tt.want)
			}
		})
	}
}

func TestUnlessTyped(t *testing.T) {
	const faint, reset = "\x1b[2m", "\x1b[0m"
	p := parsePack(t, `
[input]
line = '^> ?(.*)$'
placeholder = '^/help for help$'
[[rules]]
name = "failed"
state = "ERROR"
region = "above_input:4"
match = '^ERR '
unless_typed = '^/\w*'
`)
	tests := []struct {
		name string
		text string
		want state.State
	}{
		{"empty box", "ERR boom\n> ", state.Error},
		{"a draft", "ERR boom\n> try again", state.Error},
		{"a command being typed", "ERR boom\n> /log", state.Unknown},
		{"a faint hint that looks like a command is not typed", "ERR boom\n> " + faint + "/help" + reset, state.Error},
		{"a placeholder is not typed", "ERR boom\n> /help for help", state.Error},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Classify(screen.Parse(tt.text)); got.State != tt.want {
				t.Errorf("got %s, want %s", got.State, tt.want)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name string
		rule string
		text string
		want string
	}{
		{"default is the matched line, blanks collapsed", `match = 'boom'`, "x\n  it   went boom  \ny", "it went boom"},
		{"named group", `match = 'boom'
summary = 'went (?P<summary>\w+)'`, "it went boom", "boom"},
		{"first group", `match = 'boom'
summary = '(\w+) went'`, "it went boom", "it"},
		{"lowest matching line in the region", `match = 'boom'
summary = '^cmd (.*)'`, "cmd old\ncmd new\nboom", "new"},
		{"searched above the region when missing in it", `match = 'boom'
region = "last:1"
summary = '^title (.*)'`, "title what\nbody\nboom", "what"},
		{"not above the since line", `match = 'boom'
region = "last:1"
since = '^turn'
summary = '^title (.*)'`, "title old\nturn\nbody\nboom", "boom"},
		{"a pattern with \\n spans lines", `match = 'boom'
summary = '(?m)^Title\n\s*(?P<summary>.+)$'`, "Title\n  first\nTitle\n  second\nboom", "second"},
		{"falls back to the matched line", `match = 'boom'
summary = 'nothing like this'`, "a boom", "a boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parsePack(t, "[[rules]]\nname = \"r\"\nstate = \"ERROR\"\n"+tt.rule+"\n")
			if got := p.Classify(screen.Parse(tt.text)).Summary; got != tt.want {
				t.Errorf("summary %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSummaryIsClipped(t *testing.T) {
	p := parsePack(t, "[[rules]]\nname = \"r\"\nstate = \"BUSY\"\nmatch = 'x'\n")
	got := p.Classify(screen.Parse(strings.Repeat("x", 500))).Summary
	if n := len([]rune(got)); n != MaxSummary || !strings.HasSuffix(got, "…") {
		t.Errorf("summary of %d runes %q, want %d ending in …", n, got, MaxSummary)
	}
}

func TestProcessConditions(t *testing.T) {
	p := parsePack(t, `
[[rules]]
name = "running"
state = "BUSY"
match = '\$ \S'
not_process = '^(bash|zsh)$'
[[rules]]
name = "draft"
state = "READY"
match = '\$ \S'
process = '^(bash|zsh)$'
`)
	tests := []struct {
		fg   string
		want string
	}{
		{"", "running"}, // unknown: both fire, BUSY outranks READY
		{"bash", "draft"},
		{"sleep", "running"},
	}
	for _, tt := range tests {
		t.Run("fg="+tt.fg, func(t *testing.T) {
			sc := screen.Parse("$ sleep 30")
			sc.Foreground = tt.fg
			if got := p.Classify(sc); got.Rule != tt.want {
				t.Errorf("rule %q, want %q", got.Rule, tt.want)
			}
		})
	}
}

func TestInputText(t *testing.T) {
	const faint, reverse, reset = "\x1b[2m", "\x1b[7m", "\x1b[0m"
	set := builtinSet(t)
	tests := []struct {
		name   string
		pack   string
		screen string
		want   string
		found  bool
	}{
		{"typed text", "codex", "› fix the bug\n\n  gpt-5 high · ~/app", "fix the bug", true},
		{"faint placeholder is not typed", "codex", "\x1b[1m›\x1b[0m " + faint + "Ask Codex to do anything" + reset, "", true},
		{"faint hint the pack does not name", "codex", "› " + faint + "Something new to try" + reset, "", true},
		{"cursor over a faint placeholder's first letter", "claude",
			"────\n❯\u00a0" + reverse + "P" + reset + faint + "ress up to edit queued messages" + reset + "\n────", "", true},
		{"hint under a failed request, cursor over its first letter", "claude",
			"────\n❯\u00a0" + reverse + "O" + reset + faint + "nce fixed, resend your message" + reset + "\n────", "", true},
		{"placeholder drawn in plain grey", "gemini", " > \x1b[38;5;248m Type your message or @path/to/file\x1b[39m", "", true},
		{"empty box", "claude", "────\n❯\u00a0\n────", "", true},
		{"lowest input-like line wins", "claude", "❯ old prompt\n● answer\n────\n❯ new draft\n────", "new draft", true},
		{"shell prompt is the box", "shell", "user@devbox:~$", "", true},
		{"a draft at a shell prompt", "shell", "ls\nuser@devbox:~$ rm -rf ./build", "rm -rf ./build", true},
		{"no input box", "shell", "compiling 3 of 9", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := mustPack(t, set, tt.pack).InputText(screen.Parse(tt.screen))
			if got != tt.want || found != tt.found {
				t.Errorf("InputText = %q, %v; want %q, %v", got, found, tt.want, tt.found)
			}
		})
	}
}

func TestLoadUserDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A broken replacement for a builtin: the builtin must keep working.
	write("codex.toml", "description = \"mine\"\n\n[[rules]]\nname = \"x\"\nstate = \"BUSY\"\nmatch = '(unclosed'\n")
	// A new pack, and a replacement of a builtin.
	write("aider.toml", "description = \"aider\"\n[detect]\ncommands = [\"aider\"]\n[[rules]]\nname = \"prompt\"\nstate = \"READY\"\nmatch = '^> $|^>$'\n")
	write("gemini.toml", "description = \"my gemini\"\n[[rules]]\nname = \"any\"\nstate = \"BUSY\"\nmatch = '.'\n")
	write("notes.txt", "not a pack")

	set := Load(dir)
	if len(set.Problems) != 1 {
		t.Fatalf("problems %v, want exactly the broken codex.toml", set.Problems)
	}
	var perr *Error
	if !errors.As(set.Problems[0], &perr) || perr.File != filepath.Join(dir, "codex.toml") || perr.Line != 6 {
		t.Errorf("problem %q, want it located at codex.toml:6", set.Problems[0])
	}
	if !strings.HasPrefix(set.Problems[0].Error(), filepath.Join(dir, "codex.toml")+":6: ") {
		t.Errorf("problem reads %q, want file:line: first", set.Problems[0])
	}
	if p := mustPack(t, set, "codex"); p.Source != SourceBuiltin {
		t.Errorf("codex comes from %s, want the builtin kept", p.Source)
	}
	if p := mustPack(t, set, "gemini"); p.Description != "my gemini" || len(p.Rules) != 1 {
		t.Errorf("gemini not replaced whole by the user file: %+v", p.Description)
	}
	if p := mustPack(t, set, "aider"); p.Source != filepath.Join(dir, "aider.toml") {
		t.Errorf("aider from %q", p.Source)
	}
	if _, err := set.Get("notes"); !errors.Is(err, ErrUnknownPack) {
		t.Errorf("a .txt file became a pack: %v", err)
	}
}

func TestParseErrorsAreLocated(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		msg  string
	}{
		{"bad regex", "[[rules]]\nname = \"a\"\nstate = \"BUSY\"\nmatch = '(x'\n", 4, "bad regular expression"},
		{"bad state", "[[rules]]\nname = \"a\"\nstate = \"STALLED\"\nmatch = 'x'\n", 3, "cannot be set by a rule"},
		{"bad region", "[[rules]]\nname = \"a\"\nstate = \"BUSY\"\nmatch = 'x'\nregion = \"last:0\"\n", 5, "positive"},
		{"unknown key", "description = \"d\"\n[[rules]]\nname = \"a\"\nstate = \"BUSY\"\nmatch = 'x'\nmatchh = 'y'\n", 6, "unknown key"},
		{"rule without match", "[[rules]]\nname = \"a\"\nstate = \"BUSY\"\n\n[[rules]]\nname = \"b\"\nstate = \"BUSY\"\n", 1, "no match"},
		{"duplicate rule", "[[rules]]\nname = \"a\"\nstate = \"BUSY\"\nmatch = 'x'\n[[rules]]\nname = \"a\"\nstate = \"BUSY\"\nmatch = 'y'\n", 5, "defined twice"},
		{"bad since", "[[rules]]\nname = \"a\"\nstate = \"BUSY\"\nmatch = 'x'\nsince = '['\n", 5, "bad regular expression"},
		{"settle on a busy rule", "[[rules]]\nname = \"a\"\nstate = \"READY\"\nmatch = 'x'\nsettle = \"200ms\"\n[[rules]]\nname = \"b\"\nstate = \"BUSY\"\nmatch = 'y'\nsettle = \"200ms\"\n", 6, "settle is how long a READY screen"},
		{"settle after work longer than settle", "description = \"d\"\nsettle_after_work = \"2s\"\n[[rules]]\nname = \"a\"\nstate = \"READY\"\nmatch = 'x'\n", 2, "longer than settle (1s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p", "p.toml", []byte(tt.src))
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("err = %v, want a located *Error", err)
			}
			if perr.Line != tt.line || !strings.Contains(perr.Msg, tt.msg) {
				t.Errorf("got %q, want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}

func TestBuiltinsLoad(t *testing.T) {
	set := builtinSet(t)
	for _, name := range []string{"claude", "codex", "gemini", "shell"} {
		p := mustPack(t, set, name)
		if p.Description == "" || len(p.Rules) == 0 || len(p.Actions.Submit) == 0 {
			t.Errorf("%s: description, rules and submit keys are required", name)
		}
		if name != "shell" && (len(p.Actions.Approve) == 0 || len(p.Actions.Deny) == 0 || p.Stall.Duration == 0) {
			t.Errorf("%s: an agent pack needs approve/deny keys and a stall time", name)
		}
	}
	if d := mustPack(t, set, "codex").Actions.SubmitDelay.Duration; d.Milliseconds() < 200 {
		t.Errorf("codex submit_delay %v: Codex turns Enter into a newline for ~120 ms after fast keys", d)
	}
	if s := mustPack(t, set, "shell").Stall.Duration; s != 0 {
		t.Errorf("shell stall %v, want never", s)
	}
}

func TestForProcesses(t *testing.T) {
	set := builtinSet(t)
	tests := []struct {
		name  string
		fg    string
		procs []Process
		want  string
	}{
		{"claude under node", "node", []Process{{Name: "bash", Args: []string{"-bash"}}, {Name: "node", Args: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}}}, "claude"},
		{"claude native", "claude", []Process{{Name: "bash"}, {Name: "claude", Args: []string{"claude", "--resume"}}}, "claude"},
		{"claude running a tool shell", "bash", []Process{{Name: "zsh"}, {Name: "claude", Args: []string{"/home/u/.local/bin/claude"}}, {Name: "bash", Args: []string{"/bin/bash", "-c", "make"}}}, "claude"},
		{"gemini under node", "node", []Process{{Name: "bash"}, {Name: "node", Args: []string{"node", "/usr/local/bin/gemini"}}}, "gemini"},
		{"gemini package path", "node", []Process{{Name: "node", Args: []string{"node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}}}, "gemini"},
		{"codex native", "codex", []Process{{Name: "bash"}, {Name: "codex", Args: []string{"codex"}}}, "codex"},
		{"codex npm launcher", "node", []Process{{Name: "node", Args: []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}}}, "codex"},
		// opencode and Qwen Code: process trees seen under real panes (ps -o args).
		{"opencode native", "opencode", []Process{{Name: "bash", Args: []string{"-bash"}}, {Name: "opencode", Args: []string{"opencode"}}}, "opencode"},
		{"opencode running a tool shell", "bash", []Process{{Name: "bash"}, {Name: "opencode", Args: []string{"opencode"}}, {Name: "bash", Args: []string{"bash", "-c", "sleep 40 && echo finished"}}, {Name: "sleep", Args: []string{"sleep", "40"}}}, "opencode"},
		{"opencode from a node launcher", "node", []Process{{Name: "node", Args: []string{"node", "/usr/lib/node_modules/opencode-ai/bin/opencode"}}}, "opencode"},
		{"qwen under node", "node", []Process{{Name: "bash"}, {Name: "node", Args: []string{"node", "/home/u/.npm-global/bin/qwen"}}, {Name: "node", Args: []string{"/usr/bin/node", "/home/u/.npm-global/bin/qwen"}}}, "qwen"},
		{"qwen package path", "node", []Process{{Name: "node", Args: []string{"node", "/usr/lib/node_modules/@qwen-code/qwen-code/cli.js", "--resume"}}}, "qwen"},
		{"a file named like it is not it", "vim", []Process{{Name: "vim", Args: []string{"vim", "notes/qwen-ideas.md"}}}, ""},
		{"plain shell", "bash", []Process{{Name: "bash", Args: []string{"-bash"}}}, "shell"},
		{"something else", "htop", []Process{{Name: "htop"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := set.ForProcesses(tt.fg, tt.procs)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != tt.want {
				t.Errorf("got pack %q, want %q", name, tt.want)
			}
		})
	}
}

// A READY rule's settle time reaches the result only when that rule decides the screen.
func TestRuleSettleComesWithItsVerdict(t *testing.T) {
	src := "[[rules]]\nname = \"spinner\"\nstate = \"BUSY\"\nmatch = 'working'\n" +
		"[[rules]]\nname = \"turn-done\"\nstate = \"READY\"\nmatch = '^Worked for'\nsettle = \"250ms\"\n" +
		"[[rules]]\nname = \"prompt\"\nstate = \"READY\"\nmatch = '^>'\n"
	p, err := Parse("p", "p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		rule string
		want time.Duration
	}{
		{"Worked for 7s\n> \n", "turn-done", 250 * time.Millisecond},
		{"some answer\n> \n", "prompt", 0},
		{"Worked for 7s\nworking\n> \n", "spinner", 0},
	} {
		if got := p.Classify(screen.Parse(tt.text)); got.Rule != tt.rule || got.Settle != tt.want {
			t.Errorf("%q: rule %q settle %v, want %q %v", tt.text, got.Rule, got.Settle, tt.rule, tt.want)
		}
	}
}

// TestSummaryFromEitherAlternative: a summary pattern whose alternatives each name a
// "summary" group reports the one that matched, for screens laid out two ways.
func TestSummaryFromEitherAlternative(t *testing.T) {
	p := parsePack(t, `
[[rules]]
name = "ask"
state = "NEEDS_CONFIRMATION"
region = "screen"
match = 'proceed\?'
summary = 'Command: (?P<summary>\S+)|Run (?P<summary>\S+)'
`)
	for text, want := range map[string]string{"Command: ls\nproceed?": "ls", "Run make\nproceed?": "make"} {
		if got := p.Classify(screen.Parse(text)).Summary; got != want {
			t.Errorf("%q: summary %q, want %q", text, got, want)
		}
	}
}
