package agenthooks

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/paneherd/paneherd/hooks"
)

const binary = "/opt/paneherd/bin/paneherd"

// home is a temp HOME holding one agent's settings file (from testdata, or absent: "").
func home(t *testing.T, agent, fixture string) (getenv func(string) string, file string) {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir}
	getenv = func(k string) string { return env[k] }
	_, file, err := lookup(agent, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if fixture != "" {
		b, err := os.ReadFile(filepath.Join("testdata", fixture))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return getenv, file
}

func install(t *testing.T, agent string, getenv func(string) string) (Change, string) {
	t.Helper()
	c, err := Install(agent, binary, getenv)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	backup, err := c.Apply(time.Now())
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return c, backup
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// commandsFor lists, per event, the commands in a JSON settings file.
func commandsFor(t *testing.T, text string) map[string][]string {
	t.Helper()
	doc, err := parseObject([]byte(text))
	if err != nil {
		t.Fatalf("settings no longer parse: %v\n%s", err, text)
	}
	out := map[string][]string{}
	hs, _ := hooksOf(doc, false)
	if hs == nil {
		return out
	}
	for _, ev := range hs.keys {
		groups, _ := groupsOf(hs, ev)
		for _, g := range groups {
			entries, _ := entriesOf(g)
			for _, e := range entries {
				out[ev] = append(out[ev], commandOf(e))
			}
		}
	}
	return out
}

func TestJSONAgentsMergeKeepAndUndo(t *testing.T) {
	for _, tc := range []struct{ agent, fixture, userEvent, userCommand string }{
		{"claude", "claude-settings.json", "Notification", `notify-send 'Claude' "$(jq -r .message)"`},
		{"gemini", "gemini-settings.json", "BeforeTool", "$GEMINI_PROJECT_DIR/.gemini/hooks/security.sh"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			getenv, file := home(t, tc.agent, tc.fixture)
			original := readFile(t, file)
			c, backup := install(t, tc.agent, getenv)
			if len(c.Actions) != len(hooks.AgentEvents[tc.agent]) {
				t.Errorf("actions %q", c.Actions)
			}
			if backup == "" || readFile(t, backup) != original {
				t.Errorf("backup %q does not hold the original", backup)
			}
			text := readFile(t, file)
			cmds := commandsFor(t, text)
			for _, ev := range hooks.AgentEvents[tc.agent] {
				want := binary + " hook agent " + tc.agent + " " + ev
				if got := cmds[ev]; len(got) == 0 || got[len(got)-1] != want {
					t.Errorf("%s: commands %q, want ours last: %q", ev, got, want)
				}
			}
			if cmds[tc.userEvent][0] != tc.userCommand {
				t.Errorf("the user's %s hook is gone: %q", tc.userEvent, cmds[tc.userEvent])
			}
			if tc.agent == "claude" && !strings.Contains(text, `"FOO": "<bar & baz>"`) || !strings.HasPrefix(text, "{\n") {
				t.Errorf("other settings not kept as they were:\n%s", text)
			}

			again, err := Install(tc.agent, binary, getenv)
			if err != nil || again.Changed() || len(again.Actions) != 0 {
				t.Fatalf("second install changes %q (%v)", again.Actions, err)
			}
			if s, err := StatusOf(tc.agent, binary, getenv); err != nil || !s.Installed {
				t.Errorf("status %+v, %v", s, err)
			}
			if s, _ := StatusOf(tc.agent, "/elsewhere/paneherd", getenv); s.Installed || !strings.Contains(s.Detail, "another paneherd") {
				t.Errorf("status for another binary: %+v", s)
			}

			u, err := Uninstall(tc.agent, getenv)
			if err != nil || !u.Changed() {
				t.Fatalf("uninstall: %v, changed %v", err, u.Changed())
			}
			if _, err := u.Apply(time.Now()); err != nil {
				t.Fatal(err)
			}
			if got, want := commandsFor(t, readFile(t, file)), commandsFor(t, original); !reflect.DeepEqual(got, want) {
				t.Errorf("after uninstall hooks are %q, want the user's %q", got, want)
			}
			if s, _ := StatusOf(tc.agent, binary, getenv); s.Installed || s.Detail != "not installed" {
				t.Errorf("status after uninstall: %+v", s)
			}
		})
	}
}

// A moved binary's hooks are replaced, not added to: one paneherd hook per event.
func TestReinstallFromAnotherPathReplaces(t *testing.T) {
	getenv, file := home(t, "claude", "claude-settings.json")
	if _, err := mustApply(Install("claude", "/old/place/paneherd", getenv)); err != nil {
		t.Fatal(err)
	}
	c, _ := install(t, "claude", getenv)
	if !strings.HasPrefix(c.Actions[0], "replace ") {
		t.Errorf("actions %q", c.Actions)
	}
	for ev, cmds := range commandsFor(t, readFile(t, file)) {
		n := 0
		for _, cmd := range cmds {
			if strings.Contains(cmd, "paneherd hook agent") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s has %d paneherd hooks: %q", ev, n, cmds)
		}
	}
}

// TestInstallTwiceUnderAnyName: a binary not named paneherd (a copy, a symlink) finds its
// own hooks again: the second install changes nothing and status says installed.
func TestInstallTwiceUnderAnyName(t *testing.T) {
	for _, agent := range []string{"claude", "gemini", "codex"} {
		t.Run(agent, func(t *testing.T) {
			getenv, _ := home(t, agent, "")
			for i := 0; i < 2; i++ {
				c, err := Install(agent, "/opt/tools/ph", getenv)
				if err != nil {
					t.Fatal(err)
				}
				if i == 1 && len(c.Actions) > 0 {
					t.Errorf("second install would change: %q", c.Actions)
				}
				if _, err := c.Apply(time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			st, err := StatusOf(agent, "/opt/tools/ph", getenv)
			if err != nil || !st.Installed {
				t.Errorf("status %+v, %v", st, err)
			}
		})
	}
}

func mustApply(c Change, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return c.Apply(time.Now())
}

func TestUnparseableFileUntouched(t *testing.T) {
	for _, tc := range []struct{ agent, text string }{
		{"claude", "{\n  \"hooks\": {\n    // a comment\n  }\n}\n"},
		{"claude", `{"hooks": []}`},
		{"gemini", `{"hooks": {"BeforeTool": {"matcher": "x"}}}`},
		{"codex", "model = \"gpt-5.5\"\nmodel = \"twice\"\n"},
		{"codex", "notify = \"not a list\"\n"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			getenv, file := home(t, tc.agent, "")
			os.MkdirAll(filepath.Dir(file), 0o700)
			os.WriteFile(file, []byte(tc.text), 0o600)
			_, err := Install(tc.agent, binary, getenv)
			if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "left as it is") {
				t.Fatalf("err = %v, want ErrUnreadable saying the file is left", err)
			}
			if got := readFile(t, file); got != tc.text {
				t.Errorf("file changed: %q", got)
			}
			entries, _ := os.ReadDir(filepath.Dir(file))
			if len(entries) != 1 {
				t.Errorf("files beside it: %v", entries)
			}
		})
	}
}

func TestMissingFileIsCreated(t *testing.T) {
	getenv, file := home(t, "gemini", "")
	_, backup := install(t, "gemini", getenv)
	if backup != "" {
		t.Errorf("backup %q of a file that did not exist", backup)
	}
	if got := commandsFor(t, readFile(t, file)); len(got) != len(hooks.AgentEvents["gemini"]) {
		t.Errorf("hooks %q", got)
	}
}

func TestSymlinkedSettingsWrittenThroughTheLink(t *testing.T) {
	getenv, file := home(t, "claude", "claude-settings.json")
	real := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	os.Rename(file, real)
	if err := os.Symlink(real, file); err != nil {
		t.Fatal(err)
	}
	install(t, "claude", getenv)
	if fi, err := os.Lstat(file); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if !strings.Contains(readFile(t, real), "hook agent claude Stop") {
		t.Error("the linked file did not get the hooks")
	}
}

func TestCodexNotifyLineAddedKeepingComments(t *testing.T) {
	getenv, file := home(t, "codex", "codex-config.toml")
	original := readFile(t, file)
	_, backup := install(t, "codex", getenv)
	if readFile(t, backup) != original {
		t.Error("backup differs from the original")
	}
	text := readFile(t, file)
	wantLine := `notify = ["/opt/paneherd/bin/paneherd", "hook", "agent", "codex", "notify"]` + notifyComment + "\n"
	if want := strings.Replace(original, "model = ", wantLine+"model = ", 1); text != want {
		t.Errorf("config.toml =\n%s\nwant\n%s", text, want)
	}
	var doc struct{ Notify []string }
	if _, err := toml.Decode(text, &doc); err != nil || len(doc.Notify) != 5 {
		t.Fatalf("notify %q, %v", doc.Notify, err)
	}
	if c, err := Install("codex", binary, getenv); err != nil || c.Changed() {
		t.Errorf("second install: changed %v, %v", c.Changed(), err)
	}
	if s, _ := StatusOf("codex", binary, getenv); !s.Installed {
		t.Errorf("status %+v", s)
	}
	if _, err := mustApply(Uninstall("codex", getenv)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, file); got != original {
		t.Errorf("after uninstall:\n%s\nwant the original:\n%s", got, original)
	}
}

func TestCodexOwnNotifyUnderAnotherPathReplaced(t *testing.T) {
	getenv, file := home(t, "codex", "")
	os.MkdirAll(filepath.Dir(file), 0o700)
	old := "# top\nnotify = [\n  \"/old/paneherd\",\n  \"hook\", \"agent\", \"codex\", \"notify\",\n]\nmodel = \"m\"\n"
	os.WriteFile(file, []byte(old), 0o600)
	if s, _ := StatusOf("codex", binary, getenv); s.Installed || !strings.Contains(s.Detail, "/old/paneherd") {
		t.Errorf("status %+v", s)
	}
	install(t, "codex", getenv)
	want := "# top\n" + codexAgent{}.line(binary) + "\nmodel = \"m\"\n"
	if got := readFile(t, file); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCodexForeignNotifyRefused(t *testing.T) {
	getenv, file := home(t, "codex", "")
	os.MkdirAll(filepath.Dir(file), 0o700)
	text := "notify = [\"notify-send\", \"Codex\"]\n"
	os.WriteFile(file, []byte(text), 0o600)
	_, err := Install("codex", binary, getenv)
	if !errors.Is(err, ErrForeignNotify) || !strings.Contains(err.Error(), `notify-send Codex`) || !strings.Contains(err.Error(), "hook agent codex notify") {
		t.Fatalf("err = %v", err)
	}
	if readFile(t, file) != text {
		t.Error("file changed")
	}
	if s, _ := StatusOf("codex", binary, getenv); s.Installed || !strings.Contains(s.Detail, "another program") {
		t.Errorf("status %+v", s)
	}
	if c, err := Uninstall("codex", getenv); err != nil || c.Changed() {
		t.Errorf("uninstall touched the user's notify: %v", err)
	}
}

func TestSettingsPlacesFollowTheEnvironment(t *testing.T) {
	env := map[string]string{"HOME": "/h", "CODEX_HOME": "/c", "CLAUDE_CONFIG_DIR": "/cc"}
	getenv := func(k string) string { return env[k] }
	for agent, want := range map[string]string{"claude": "/cc/settings.json", "codex": "/c/config.toml", "gemini": "/h/.gemini/settings.json"} {
		if _, file, _ := lookup(agent, getenv); file != want {
			t.Errorf("%s: %s, want %s", agent, file, want)
		}
	}
	if _, _, err := lookup("cursor", getenv); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("unknown agent: %v", err)
	}
}

func TestShellWordsRoundTrip(t *testing.T) {
	for _, words := range [][]string{
		{"/opt/paneherd/bin/paneherd", "hook", "agent", "claude", "Stop"},
		{"/home/a b/it's #1/paneherd", "hook", "agent", "gemini", "AfterAgent"},
	} {
		got, ok := splitWords(shellWords(words))
		if !ok || !reflect.DeepEqual(got, words) {
			t.Errorf("%q -> %q -> %q", words, shellWords(words), got)
		}
	}
	if _, ok := splitWords(`echo 'open`); ok {
		t.Error("an open quote split")
	}
}

// TestFileChangedMeanwhileIsNotOverwritten: the agent rewrote its settings between the
// plan and the write: nothing is written, and what it wrote stays.
func TestFileChangedMeanwhileIsNotOverwritten(t *testing.T) {
	getenv, file := home(t, "claude", "claude-settings.json")
	c, err := Install("claude", "/opt/tools/paneherd", getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"theme":"light"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(time.Now()); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("apply: %v, want a refusal", err)
	}
	if got := readFile(t, file); got != `{"theme":"light"}` {
		t.Errorf("the file became %q", got)
	}
}
