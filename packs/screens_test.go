package packs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

// TestScreens covers situations the captured fixtures lack, with hand-written screens laid
// out like the real CLIs' (testdata/screens/<pack>/). fg is the foreground process the
// live watcher would pass ("" when unknown, as for a file).
func TestScreens(t *testing.T) {
	tests := []struct {
		name    string
		pack    string
		file    string
		fg      string
		want    state.State
		summary string // a part of the summary, when it matters
	}{
		// Claude Code
		{"claude edit dialog", "claude", "edit-dialog", "", state.NeedsConfirmation, "make this edit to app.py"},
		{"claude plan approval", "claude", "plan-approval", "", state.NeedsConfirmation, "Would you like to proceed?"},
		{"claude plan approval, question inline", "claude", "plan-approval-v2", "", state.NeedsConfirmation, "Would you like to proceed?"},
		{"claude trust dialog", "claude", "trust-dialog", "", state.NeedsConfirmation, "one you trust"},
		{"claude stale dialog in scrollback is history", "claude", "ready-stale-dialog-in-scrollback", "", state.Ready, ""},
		{"claude question asked in prose is not a dialog", "claude", "ready-prose-question", "", state.Ready, ""},
		{"claude old API error above a good turn is history", "claude", "ready-old-error-then-good-turn", "", state.Ready, ""},
		{"claude usage limit", "claude", "error-usage-limit", "", state.Error, "5-hour limit reached"},
		{"claude tool running", "claude", "busy-tool-running", "node", state.Busy, "Wrangling…"},
		{"claude v1 spinner", "claude", "busy-v1-spinner", "", state.Busy, "Refactoring…"},
		{"claude v1 boxed bash dialog", "claude", "v1-bash-dialog", "", state.NeedsConfirmation, "npm test"},
		{"claude v1 thinking block in the transcript is not a spinner", "claude", "ready-thinking-block-in-transcript", "", state.Ready, ""},
		{"claude slash-command menu, twenty rows under the box", "claude", "ready-slash-command-menu", "", state.Ready, ""},
		{"claude question, its last answer selected", "claude", "question-type-something-selected", "", state.NeedsConfirmation, "Which language"},
		{"claude spinner left over a finished turn is history", "claude", "ready-stale-spinner-over-finished-turn", "", state.Ready, ""},
		{"claude spinner and tip left over a finished turn", "claude", "ready-stale-spinner-with-tip-over-finished-turn", "", state.Ready, ""},
		{"claude 2.1.332 spinner left over a finished turn", "claude", "ready-stale-spinner-over-finished-turn-2.1.332", "", state.Ready, ""},
		{"claude spinner left over a turn finished with an accented verb (Sautéed)", "claude", "ready-stale-spinner-over-finished-turn-accented-verb", "", state.Ready, ""},
		{"claude spinner left over an interrupted turn", "claude", "ready-stale-spinner-over-interrupted-turn", "", state.Ready, ""},
		{"claude tool output quoting another session's API error", "claude", "ready-tool-output-quoting-api-error-401", "", state.Ready, ""},
		{"claude tool output whose first line quotes an API error", "claude", "ready-tool-output-first-line-quotes-api-error-401", "", state.Ready, ""},
		{"claude API error 401, please run /login", "claude", "error-api-error-401-please-run-login", "", state.Error, "API Error: 401"},
		{"claude API error after a tool call", "claude", "error-api-error-after-a-tool-call", "", state.Error, "API Error: 500"},
		{"claude OAuth token revoked, please run /login", "claude", "error-oauth-token-revoked", "", state.Error, "OAuth token revoked"},
		{"claude answer telling the person to run /login is no failure", "claude", "ready-answer-telling-to-run-login", "", state.Ready, ""},

		// Codex CLI
		{"codex edits approval", "codex", "edits-approval", "", state.NeedsConfirmation, "Added hello.py"},
		{"codex streaming hides its status line: its answer has no end yet", "codex", "streaming-no-status", "", state.Busy, "The build has three stages"},
		{"codex old error above a good turn is history", "codex", "ready-old-error-then-good-turn", "", state.Ready, ""},
		{"codex question asked in prose is not a dialog", "codex", "ready-prose-question", "", state.Ready, ""},
		{"codex error after an interrupted turn", "codex", "interrupted-then-error", "", state.Error, "401 Unauthorized"},

		// Gemini CLI
		{"gemini allow execution", "gemini", "allow-execution", "", state.NeedsConfirmation, "Shell git status && git log -n 3"},
		{"gemini apply this change", "gemini", "apply-change", "", state.NeedsConfirmation, "Edit hello.py"},
		{"gemini old error above a good turn is history", "gemini", "ready-old-error-then-good-turn", "", state.Ready, ""},
		{"gemini error then request cancelled", "gemini", "error-then-cancelled", "", state.Ready, ""},
		{"gemini quota error", "gemini", "error-quota", "", state.Error, "exhausted your daily quota"},
		{"gemini mistyped slash command is no failure", "gemini", "unknown-command", "", state.Ready, ""},
		{"gemini answer quoting a dialog is not one", "gemini", "ready-prose-about-dialogs", "", state.Ready, ""},
		{"gemini restarting itself under the trust dialog just answered", "gemini", "busy-trust-restarting", "", state.Busy, "restarting to apply the trust changes"},
		{"gemini trust dialog above the restarted agent (true colour)", "gemini", "ready-trust-restart-truecolor", "", state.Ready, ""},
		{"gemini shell awaiting input (true colour)", "gemini", "shell-awaiting-input-truecolor", "", state.NeedsConfirmation, "Shell awaiting input"},

		// Shells
		{"rm -i asks", "shell", "rm-interactive", "rm", state.NeedsConfirmation, "remove regular file 'notes.txt'?"},
		{"sudo password", "shell", "sudo-password", "sudo", state.NeedsConfirmation, "password for user"},
		{"ssh password", "shell", "ssh-password", "ssh", state.NeedsConfirmation, "password:"},
		{"ssh unknown host key", "shell", "ssh-host-key", "ssh", state.NeedsConfirmation, "continue connecting"},
		{"apt continue", "shell", "apt-continue", "apt", state.NeedsConfirmation, "[Y/n]"},
		{"zsh prompt", "shell", "zsh-prompt", "zsh", state.Ready, ""},
		{"zsh default prompt", "shell", "zsh-default-prompt", "", state.Ready, ""},
		{"fish prompt", "shell", "fish-prompt", "fish", state.Ready, ""},
		{"starship two-line prompt", "shell", "starship-prompt", "", state.Ready, ""},
		{"oh-my-zsh prompt", "shell", "ohmyzsh-prompt", "", state.Ready, ""},
		{"fedora prompt", "shell", "fedora-prompt", "", state.Ready, ""},
		{"node REPL", "shell", "node-repl", "node", state.Ready, ""},
		{"sqlite REPL", "shell", "sqlite-repl", "sqlite3", state.Ready, ""},
		{"psql REPL", "shell", "psql-repl", "psql", state.Ready, ""},
		{"ipython REPL", "shell", "ipython-repl", "", state.Ready, ""},
		{"irb REPL", "shell", "irb-repl", "ruby", state.Ready, ""},
		{"make error", "shell", "make-error", "", state.Error, "make: *** [Makefile:4: main.o] Error 1"},
		{"command not found", "shell", "command-not-found", "bash", state.Error, "foo: command not found"},
		{"go test failure", "shell", "go-test-fail", "", state.Error, "FAIL"},
		{"node uncaught exception", "shell", "node-uncaught", "", state.Error, "TypeError: port must be a number"},
		{"old error above a later good command", "shell", "old-error-then-success", "", state.Ready, ""},
		{"draft at a bash prompt, bash in front", "shell", "draft-at-prompt", "bash", state.Ready, ""},
		{"draft at a bash prompt, process unknown", "shell", "draft-at-prompt", "", state.Busy, "git status"},
		{"command running, sleep in front", "shell", "sleep-running", "sleep", state.Busy, "sleep 30"},
		{"command running, process unknown", "shell", "sleep-running", "", state.Busy, "sleep 30"},
		{"build printing", "shell", "build-printing", "cargo", state.Busy, "Compiling app"},
		{"unknown custom prompt, shell in front", "shell", "custom-prompt-unknown", "zsh", state.Unknown, ""},
	}
	set := builtinSet(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := readScreen(t, filepath.Join("testdata/screens", tt.pack, tt.file+".txt"))
			sc.Foreground = tt.fg
			got := mustPack(t, set, tt.pack).Classify(sc)
			if got.State != tt.want {
				t.Fatalf("%s says %s (rule %q, %q), want %s", tt.pack, got.State, got.Rule, got.Summary, tt.want)
			}
			if !strings.Contains(got.Summary, tt.summary) {
				t.Errorf("summary %q, want it to contain %q", got.Summary, tt.summary)
			}
		})
	}
}

// TestShellLastLines covers one- and two-line shell situations inline.
func TestShellLastLines(t *testing.T) {
	tests := []struct {
		name string
		text string
		fg   string
		want state.State
	}{
		{"bare dollar", "$ ls\nfile\n$", "", state.Ready},
		{"root prompt", "root@3f2a1b9c:/# ls\nbin  etc\nroot@3f2a1b9c:/#", "", state.Ready},
		{"venv prompt", "(venv) user@devbox:~/app$", "", state.Ready},
		{"bash version prompt", "bash-5.2$", "", state.Ready},
		{"fish short prompt", "~/s/app>", "", state.Ready},
		{"python continuation", ">>> def f():\n...", "python3", state.Ready},
		{"pdb", "> /app/x.py(3)<module>()\n-> x = 1\n(Pdb)", "python3", state.Ready},
		{"mysql", "mysql> select 1;\n1 row in set (0.00 sec)\n\nmysql>", "mysql", state.Ready},
		{"python expression running", ">>> time.sleep(10)", "python3", state.Busy},
		{"plain Password:", "user@devbox:~$ su -\nPassword:", "su", state.NeedsConfirmation},
		{"overwrite", "user@devbox:~$ cp -i a b\ncp: overwrite 'b'?", "cp", state.NeedsConfirmation},
		{"npx proceed", "Need to install the following packages:\ncreate-vite@5.2.0\nOk to proceed? (y)", "npm", state.NeedsConfirmation},
		{"pip proceed", "Found existing installation: rich 13.7.0\nUninstalling rich-13.7.0:\nProceed (Y/n)?", "pip", state.NeedsConfirmation},
		{"conda proceed", "Proceed ([y]/n)?", "conda", state.NeedsConfirmation},
		{"git add -p", "@@ -1 +1 @@\n-a\n+b\n(1/1) Stage this hunk [y,n,q,a,d,e,?]?", "git", state.NeedsConfirmation},
		{"terraform value", "  Only 'yes' will be accepted to approve.\n\n  Enter a value:", "terraform", state.NeedsConfirmation},
		{"press enter", "Press ENTER to continue", "", state.NeedsConfirmation},
		{"arrow menu", "? Select a framework: › - Use arrow-keys. Return to submit.\n❯   Vanilla\n    Vue\n    React", "node", state.NeedsConfirmation},
		{"segfault", "user@devbox:~/c$ ./a.out\nSegmentation fault (core dumped)\nuser@devbox:~/c$", "", state.Error},
		{"git fatal", "user@devbox:/tmp$ git status\nfatal: not a git repository (or any of the parent directories): .git\nuser@devbox:/tmp$", "", state.Error},
		{"ctrl-c interrupt is not an error", "user@devbox:~$ python3 x.py\n^CTraceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nKeyboardInterrupt\nuser@devbox:~$", "", state.Ready},
		{"error printed while still running", "user@devbox:~$ ./server\nERROR: connection refused, retrying in 5s", "server", state.Busy},
		{"pager waits", "commit 1a2b3c\nAuthor: Dev <dev@example.com>\n\n    fix the parser\n:", "less", state.Unknown},
	}
	set := builtinSet(t)
	shell := mustPack(t, set, "shell")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := screen.Parse(tt.text)
			sc.Foreground = tt.fg
			if got := shell.Classify(sc); got.State != tt.want {
				t.Errorf("shell says %s (rule %q, %q), want %s", got.State, got.Rule, got.Summary, tt.want)
			}
		})
	}
}

// The screens an agent draws while it starts are read by a rule named "starting"
// (tracker.RuleStarting), so that the idle prompt drawn after them waits the whole settle
// time, not the shorter settle after work: the new process may draw its prompt a moment
// before the rest of its first screen.
func TestStartingScreensAreReadByTheStartingRule(t *testing.T) {
	set := builtinSet(t)
	for _, tt := range []struct{ pack, file string }{
		{"gemini", "testdata/screens/gemini/busy-trust-restarting.txt"},
	} {
		if got := mustPack(t, set, tt.pack).Classify(readScreen(t, tt.file)); got.Rule != "starting" {
			t.Errorf("%s: rule %q (%s), want starting", tt.file, got.Rule, got.State)
		}
	}
}
