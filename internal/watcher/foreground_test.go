package watcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/packs"
)

// The decision rule of quietCommand, case by case: which readings a command in front of
// the shell turns BUSY, and which it leaves alone.
func TestQuietCommandRule(t *testing.T) {
	set := packs.Load("")
	shell, _ := set.Get(FallbackPack)
	claude, _ := set.Get("claude")
	bash := proc.Foreground{PID: 100, Name: "bash", Own: 100, Group: 100} // at its prompt
	sleeping := proc.Foreground{PID: 100, Name: "bash", Own: 100, Group: 140}
	cases := []struct {
		name    string
		pack    *packs.Pack
		fg      proc.Foreground
		command string // the name of what is in front
		screen  string
		read    state.State // what the pack's rules said
		want    state.State
	}{
		{"typed command, a command in front", shell, sleeping, "sleep", "bash-5.2$ ls\nfoo\nbash-5.2$ sleep 4", state.Ready, state.Busy},
		{"the same, no rule of the pack matched", shell, sleeping, "sleep", "user@host:~$ sleep 4", state.Unknown, state.Busy},
		{"a prompt the pack does not know: no command line to see", shell, sleeping, "sleep", "→ sleep 4", state.Unknown, state.Unknown},
		{"cleared screen, a command in front", shell, sleeping, "sleep", "\n\n", state.Unknown, state.Busy},
		{"a draft: the shell is in front", shell, bash, "bash", "bash-5.2$ sleep 4", state.Ready, state.Ready},
		{"a nested shell at its prompt with a draft", shell, sleeping, "zsh", "host% make", state.Ready, state.Ready},
		{"the pane's own process is no shell", shell, proc.Foreground{PID: 100, Name: "ssh", Own: 100, Group: 140}, "sleep", "bash-5.2$ sleep 4", state.Ready, state.Ready},
		{"a shell without job control runs it in its own group", shell, proc.Foreground{PID: 100, Name: "sh", Own: 100, Group: 100}, "sh", "$ sleep 4", state.Ready, state.Ready},
		{"sudo asks for a password", shell, sleeping, "sudo", "bash-5.2$ sudo ls\n[sudo] password for ann:", state.NeedsConfirmation, state.NeedsConfirmation},
		{"an error of the pack's stands", shell, sleeping, "sleep", "bash-5.2$ sleep 4", state.Error, state.Error},
		{"a pager drew its own screen", shell, sleeping, "less", "line 1\nline 2\n:", state.Unknown, state.Unknown},
		{"a REPL waits at its prompt", shell, sleeping, "python3", "bash-5.2$ python3\nPython 3.12\n>>>", state.Ready, state.Ready},
		{"an agent has its own pack", claude, sleeping, "claude", "bash-5.2$ claude\n> fix it", state.Ready, state.Ready},
		{"no foreground read", shell, proc.Foreground{}, "sleep", "bash-5.2$ sleep 4", state.Ready, state.Ready},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := screen.Parse(c.screen)
			got := quietCommand(c.pack, c.fg, c.command, sc, packs.Result{State: c.read, Rule: "pack-rule", Hash: 7})
			if got.State != c.want {
				t.Fatalf("state %s, want %s (%+v)", got.State, c.want, got)
			}
			if c.want != c.read && (got.Rule != RuleForeground || got.Summary != "running "+c.command || got.Hash != 7) {
				t.Errorf("BUSY by %q %q hash %d: want rule %s, the command named, the screen's hash", got.Rule, got.Summary, got.Hash, RuleForeground)
			}
			if c.want == c.read && got.Rule != "pack-rule" {
				t.Errorf("the pack's reading was replaced: %+v", got)
			}
		})
	}
}

// Through the watcher, with a shell pack of a person's own that knows prompts and
// nothing of commands running: the pane is BUSY while the command is in front, READY
// once the shell is back and its prompt has settled.
func TestQuietCommandThroughTheWatcher(t *testing.T) {
	dir := t.TempDir()
	pack := `description = "prompts only"
settle = "500ms"
[detect]
commands = ["bash"]
[input]
line = '^bash-5\.2\$(?: (.*))?$'
[[rules]]
name = "prompt"
state = "READY"
region = "last:1"
match = '^bash-5\.2\$'
`
	if err := os.WriteFile(filepath.Join(dir, "shell.toml"), []byte(pack), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t)
	w.Packs = packs.Load(dir)
	if len(w.Packs.Problems) > 0 {
		t.Fatal(w.Packs.Problems)
	}
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "bash", WindowPanes: 1, PID: 100, Command: "bash"}
	atPrompt := proc.Foreground{PID: 100, Name: "bash", Own: 100, Group: 100}
	running := atPrompt
	running.Group = 140
	step := func(at time.Duration, command string, fg proc.Foreground, sc string) (string, string) {
		t.Helper()
		p := pane
		p.Command = command
		err := w.Step(observe.Frame{At: t0.Add(at), Panes: []tmux.Pane{p}, Screens: map[string]string{"%1": sc},
			Foreground: map[string]proc.Foreground{"%1": fg}})
		if err != nil {
			t.Fatal(err)
		}
		rec, _, _ := w.Pane("%1")
		return rec.State, rec.Rule
	}
	step(0, "bash", atPrompt, "bash-5.2$")
	if st, _ := step(600*time.Millisecond, "bash", atPrompt, "bash-5.2$"); st != "READY" {
		t.Fatalf("an idle prompt: %s", st)
	}
	if st, _ := step(time.Second, "bash", atPrompt, "bash-5.2$ sleep 4"); st != "READY" {
		t.Fatalf("a draft at the prompt: %s", st)
	}
	// Enter: the same screen, the command in front.
	if st, rule := step(1100*time.Millisecond, "sleep", running, "bash-5.2$ sleep 4"); st != "BUSY" || rule != RuleForeground {
		t.Fatalf("a quiet command in front: %s by %s", st, rule)
	}
	done := "bash-5.2$ sleep 4\nbash-5.2$"
	if st, _ := step(5100*time.Millisecond, "bash", atPrompt, done); st != "BUSY" {
		t.Fatalf("the prompt back, not yet settled: %s", st)
	}
	if st, _ := step(5700*time.Millisecond, "bash", atPrompt, done); st != "READY" {
		t.Fatalf("the prompt back and settled: %s", st)
	}
	hist, err := db(w).Transitions("%1", 10)
	if err != nil {
		t.Fatal(err)
	}
	var path []string
	for _, tr := range hist {
		path = append(path, tr.To)
	}
	if got := strings.Join(path, " "); !strings.Contains(got, "BUSY") {
		t.Errorf("transitions %s", got)
	}
}
