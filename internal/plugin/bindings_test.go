package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestSendPromptKeepsTheTargetOneWord: whatever the target holds (a host's pane id is
// what the host sent), the shell that run-shell starts sees it as one word, exactly, and
// runs nothing of it; a '%' in it survives command-prompt's replacement of %1.
func TestSendPromptKeepsTheTargetOneWord(t *testing.T) {
	h := tmuxtest.New(t)
	dir := t.TempDir()
	binary := filepath.Join(dir, "pane herd")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$0.tmp\" && mv \"$0.tmp\" \"$0.args\"\n"
	if err := os.WriteFile(binary, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(dir, "pwned")
	for _, target := range []string{"devbox:%12", "devbox:%1;touch " + pwned + ";", "d'x:$(touch " + pwned + ")#{pane_id}`touch " + pwned + "`"} {
		t.Run(target, func(t *testing.T) {
			os.Remove(binary + ".args")
			p := Plugin{Server: h.Server, Binary: binary}
			cmd := p.SendPrompt(target, "x")
			if cmd[0] != "command-prompt" {
				t.Fatalf("SendPrompt = %q", cmd)
			}
			// What command-prompt does with the answer "hi": the first %%% and every %1 become
			// it; then tmux parses the template as a configuration line.
			template := strings.Replace(cmd[len(cmd)-1], "%%%", "hi", 1)
			template = strings.ReplaceAll(template, "%1", "hi")
			conf := filepath.Join(dir, "prompt.conf")
			if err := os.WriteFile(conf, []byte(template+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h.Run("source-file", conf)
			var args []byte
			tmuxtest.WaitFor(t, 15*time.Second, func() bool {
				args, _ = os.ReadFile(binary + ".args")
				return len(args) > 0
			})
			words := strings.Split(strings.TrimSuffix(string(args), "\n"), "\n")
			if last := words[len(words)-1]; last != target {
				t.Errorf("paneherd ran with %q: its last word %q, want %q", words, last, target)
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Errorf("the target's text ran as a command")
			}
		})
	}
}
