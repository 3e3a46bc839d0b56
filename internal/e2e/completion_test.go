package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// completions runs the shell's completion of line (the cursor at its end) with the script
// `paneherd completion SHELL` prints loaded, paneherd on PATH, and returns the candidates.
func completions(t *testing.T, r *rig, shell, line string) []string {
	t.Helper()
	dir := t.TempDir()
	script, _, code := r.paneherd("completion", shell)
	if code != 0 {
		t.Fatalf("completion %s: exit %d", shell, code)
	}
	path := filepath.Join(dir, "paneherd."+shell)
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(binary, filepath.Join(dir, "paneherd")); err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	switch shell {
	case "bash":
		words := strings.Fields(line)
		if strings.HasSuffix(line, " ") {
			words = append(words, "")
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellQuote(w)
		}
		cmd = exec.Command("bash", "--norc", "-c", "source "+shellQuote(path)+"; COMP_WORDS=("+strings.Join(quoted, " ")+
			"); COMP_CWORD="+strconv.Itoa(len(words)-1)+"; _paneherd; printf '%s\\n' \"${COMPREPLY[@]}\"")
	case "fish":
		cmd = exec.Command("fish", "--no-config", "-c", "source "+shellQuote(path)+"; complete -C "+shellQuote(line))
	case "zsh":
		// zsh completes only in its line editor: drive an interactive zsh in a tmux pane,
		// press Tab, and read what it lists.
		return zshCompletions(t, r, dir, path, line)
	}
	// In a directory of its own, whose files (the script) show if a shell offers files.
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(r.env), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s completion of %q: %v", shell, line, err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, _, _ := strings.Cut(l, "\t") // fish: "candidate\tdescription"
		if name != "" {
			got = append(got, name)
		}
	}
	return got
}

// zshCompletions types line into an interactive zsh with the script loaded and shows the
// candidates with Tab (as a list: no menu, no prompt asking).
func zshCompletions(t *testing.T, r *rig, dir, script, line string) []string {
	t.Helper()
	rc := filepath.Join(dir, ".zshrc")
	os.WriteFile(rc, []byte("cd "+shellQuote(dir)+"\nautoload -U compinit; compinit -u\nsource "+shellQuote(script)+
		"\nsetopt nomenucomplete noautomenu; unsetopt listambiguous\nzstyle ':completion:*' list-prompt ''\nPS1='prompt: '\n"), 0o644)
	pane := r.tmux.NewWindow("main", "zsh", "env PATH="+shellQuote(dir+":"+os.Getenv("PATH"))+" ZDOTDIR="+shellQuote(dir)+" zsh -i")
	r.waitFor("zsh's prompt", 20*time.Second, func() bool {
		return strings.Contains(r.tmux.Run("capture-pane", "-p", "-t", pane), "prompt:") // capture-pane drops trailing spaces; a prompt naming no shell, or "zsh" would always be on the line
	})
	r.tmux.Run("send-keys", "-t", pane, "-l", line)
	// Tab once the line shows: a screen read before zsh echoed it would pass for the end.
	typed := "prompt: " + strings.TrimRight(line, " ")
	r.waitFor("zsh shows the line", 20*time.Second, func() bool {
		return strings.TrimRight(r.tmux.Run("capture-pane", "-p", "-t", pane), " \n") == typed
	})
	r.tmux.Run("send-keys", "-t", pane, "Tab")
	var screen string
	r.waitFor("zsh lists or completes", 20*time.Second, func() bool {
		screen = r.tmux.Run("capture-pane", "-p", "-t", pane)
		lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		return len(lines) > 1 || !strings.HasSuffix(strings.TrimRight(lines[0], " "), strings.TrimRight(line, " "))
	})
	r.tmux.Run("kill-pane", "-t", pane)
	return strings.Fields(screen)
}

// TestCompletion: each shell completes commands, a command's flags, pane names for a
// TARGET from the server the line names, the shells for completion, and the words a flag
// or a subcommand takes (states, dialog choices, packs, managed workers) rather than file
// names.
func TestCompletion(t *testing.T) {
	r := newRig(t)
	api := r.tmux.NewSession("main", showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")))
	r.tmux.Run("rename-window", "-t", api, "api-worker")
	r.tmux.Run("set-option", "-p", "-t", api, "@paneherd-pack", "claude")
	// Names a program in a pane can give its window: completion must offer them as words,
	// never run or glob them.
	pwned := filepath.Join(r.home, "pwned")
	r.tmux.NewWindow("main", "my api", "exec sleep 100000")
	r.tmux.NewWindow("main", "x$(touch "+pwned+")", "exec sleep 100000")
	r.start()
	r.waitState(api, "READY")
	sock := r.tmux.Server.Socket
	workspace := filepath.Join(r.home, "src", "kw")
	os.MkdirAll(workspace, 0o755)
	// Never READY: create ends at its timeout, and the worker stays.
	r.paneherd("create", workspace, "--name", "kworker", "--timeout", "1s", "--", "sh", "-c", "exec sleep 100000")
	if w := r.worker("kworker"); w.Name == "" {
		t.Fatalf("no managed worker kworker")
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				t.Fatalf("%s is not installed (.ci/run installs it)", shell)
			}
			for _, tc := range []struct {
				line string
				want []string
			}{
				{"paneherd do", []string{"doctor"}},
				{"paneherd wait --ti", []string{"--timeout"}},
				{"paneherd -S " + sock + " send ", []string{"api-worker"}},
				{"paneherd completion ", []string{"bash", "fish", "zsh"}},
				{"paneherd -S " + sock + " send my", map[string][]string{"bash": {`my\ api`}, "fish": {"my api"}, "zsh": {`my\ api`}}[shell]},
				{"paneherd menu --s", []string{"--send"}},
				{"paneherd wait api-worker --until ", []string{"READY", "BUSY", "NEEDS_CONFIRMATION", "ERROR", "STALLED", "OFFLINE", "UNKNOWN"}},
				{"paneherd wait api-worker --until NE", []string{"NEEDS_CONFIRMATION"}},
				{"paneherd approve --choice ", []string{"yes", "always", "no"}},
				{"paneherd packs ", []string{"list", "show", "check"}},
				{"paneherd packs show ", []string{"claude", "codex", "shell"}},
				{"paneherd packs show --builtin gem", []string{"gemini"}},
				{"paneherd create . --pack cl", []string{"claude"}},
				{"paneherd workers ", []string{"continue"}},
				{"paneherd -S " + sock + " workers continue ", []string{"kworker"}},
				{"paneherd -S " + sock + " retire kw", []string{"kworker"}},
			} {
				got := completions(t, r, shell, tc.line)
				if _, err := os.Stat(pwned); err == nil {
					t.Fatalf("%s: completing %q ran a window's name", shell, tc.line)
				}
				if slices.Contains(got, "paneherd."+shell) {
					t.Errorf("%s: %q offers file names: %q", shell, tc.line, got)
				}
				for _, w := range tc.want {
					// zsh's line shows what it inserted, spaces escaped: look for it in the line.
					inLine := shell == "zsh" && strings.Contains(strings.Join(got, " "), w)
					if !slices.Contains(got, w) && !inLine {
						t.Errorf("%s: %q completes to %q, want %q among them", shell, tc.line, got, w)
					}
				}
			}
		})
	}
}
