package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompactBarOnAttachedClient: many agents in one bar. With @paneherd-layout compact
// a real client's status line shows a count per state with its icon, and the names of
// the panes that need a person, escaped, in both status modes; @paneherd-show attention
// leaves only those (and agents newly READY).
func TestCompactBarOnAttachedClient(t *testing.T) {
	for _, tc := range []struct {
		mode, show string
		want       []string // in order, on the drawn line
		absent     []string
	}{
		{"push", "all", []string{"✔2 …2 ✖1 docs ?2 api,#(touch "}, nil},
		{"job", "all", []string{"✔2 …2 ✖1 docs ?2 api,#(touch "}, nil},
		{"push", "attention", []string{"✔1 ✖1 docs ?2 api,#(touch "}, []string{"…2", "✔2"}},
	} {
		t.Run(tc.mode+"-"+tc.show, func(t *testing.T) {
			r, pluginDir := newPluginRig(t)
			pwned := filepath.Join(r.home, "pwned")
			windows := []struct{ name, fixture, pack string }{
				{"api", "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt", "claude"},
				// tmux expands formats in new-window -n: "##" makes the stored name start with "#".
				{"##(touch " + pwned + ")", "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt", "codex"},
				{"docs", "claude/20-ERROR-invalid-api-key-after-retries.txt", "claude"},
				{"tests", "claude/16-BUSY-thinking-before-first-token.txt", "claude"},
				{"lint", "codex/08-BUSY-running-command.txt", "codex"},
				{"done", "claude/06-READY-after-short-answer.txt", "claude"},
				{"zsh", "bash/01-EXITED-idle-shell-prompt-after-ls.txt", "shell"},
			}
			var first string
			for i, w := range windows {
				var id string
				if i == 0 {
					id = r.tmux.NewSession("main", showCommand(fixture(t, w.fixture)))
					r.tmux.Run("rename-window", "-t", id, w.name)
					first = id
				} else {
					id = r.tmux.NewWindow("main", w.name, showCommand(fixture(t, w.fixture)))
				}
				r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", w.pack)
			}
			r.tmux.Run("select-window", "-t", first)
			r.source(fmt.Sprintf(`set -g status-left ''
set -g window-status-format ''
set -g window-status-current-format ''
set -g status-interval 1
set -g @paneherd-status-mode %s
set -g @paneherd-layout compact
set -g @paneherd-show %s
set -g status-right '#{paneherd_status}'
run-shell %s/paneherd.tmux
`, tc.mode, tc.show, pluginDir))
			bar := statusBar(t, r, "main")
			r.waitFor("the compact line on the client", 40*time.Second, func() bool {
				line := bar()
				at := 0
				for _, w := range tc.want {
					i := strings.Index(line[at:], w)
					if i < 0 {
						return false
					}
					at += i + len(w)
				}
				for _, a := range tc.absent {
					if strings.Contains(line, a) {
						return false
					}
				}
				return true
			})
			t.Logf("status line as drawn: %q", strings.TrimSpace(bar()))
			if _, err := os.Stat(pwned); err == nil {
				t.Errorf("a window name ran a command")
			}
		})
	}
}
