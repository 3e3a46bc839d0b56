package packs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
)

func TestDialogKeysOnRealDialogs(t *testing.T) {
	set := Load("")
	tests := []struct {
		pack, fixture, choice string
		want                  string
		err                   error
	}{
		{"claude", "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt", ChoiceApprove, "1", nil},
		{"claude", "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt", ChoiceAlways, "2", nil},
		{"claude", "claude/12-NEEDS_CONFIRMATION-write-file-permission-prompt.txt", ChoiceDeny, "Escape", nil},
		{"codex", "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt", ChoiceApprove, "y", nil},
		{"codex", "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt", ChoiceAlways, "p", nil},
		{"gemini", "gemini/01-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceApprove, "1", nil},
		{"gemini", "gemini/01-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceAlways, "", ErrChoice},
		{"shell", "bash/07-NEEDS_CONFIRMATION-read-p-continue-yN.txt", ChoiceApprove, "y Enter", nil},
		{"shell", "bash/11-NEEDS_CONFIRMATION-ssh-keygen-passphrase-prompt.txt", ChoiceApprove, "", ErrNotDialog},
		{"gemini", "gemini/03-NEEDS_CONFIRMATION-api-key-entry-dialog.txt", ChoiceApprove, "", ErrNotDialog},
		{"codex", "codex/24-NEEDS_CONFIRMATION-onboarding-browser-sign-in-wait.txt", ChoiceDeny, "", ErrNotDialog},
		{"claude", "claude/06-READY-after-short-answer.txt", ChoiceApprove, "", ErrNotDialog},
		// First-run trust dialogs, keys tried on the real CLIs in the agents lab: create
		// ends needs_confirmation on them, and approve or deny answers them.
		{"claude", "claude/41-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceApprove, "1", nil},
		{"claude", "claude/41-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceDeny, "Escape", nil},
		{"codex", "codex/40-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceApprove, "Enter", nil},
		{"codex", "codex/40-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceDeny, "Escape", nil},
		{"gemini", "gemini/01-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceDeny, "3", nil},
		{"qwen", "qwen/26-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceApprove, "1", nil},
		{"qwen", "qwen/26-NEEDS_CONFIRMATION-trust-folder-dialog.txt", ChoiceDeny, "Escape", nil},
		// The model upgrade notice is a person's choice, not a permission.
		{"codex", "codex/03-NEEDS_CONFIRMATION-model-upgrade-nux-dialog.txt", ChoiceApprove, "", ErrNotDialog},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.choice, func(t *testing.T) {
			pk, _ := set.Get(tt.pack)
			raw, err := os.ReadFile(filepath.Join("testdata", "fixtures", tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			r := pk.Classify(screen.Parse(string(raw)))
			keys, err := pk.DialogKeys(r.Rule, tt.choice)
			if !errors.Is(err, tt.err) || strings.Join(keys, " ") != tt.want {
				t.Errorf("rule %q: keys %q, err %v; want %q, %v", r.Rule, keys, err, tt.want, tt.err)
			}
		})
	}
}

func TestChoicesChecked(t *testing.T) {
	for name, body := range map[string]string{
		"unknown choice":      "[[rules]]\nname = \"d\"\nstate = \"NEEDS_CONFIRMATION\"\nmatch = 'x'\nchoices = [\"maybe\"]\n",
		"choice without keys": "[[rules]]\nname = \"d\"\nstate = \"NEEDS_CONFIRMATION\"\nmatch = 'x'\nchoices = [\"always\"]\n",
		"choices on busy":     "[actions]\napprove = [\"y\"]\n[[rules]]\nname = \"d\"\nstate = \"BUSY\"\nmatch = 'x'\nchoices = [\"approve\"]\n",
	} {
		if _, err := Parse("p", "p.toml", []byte(body)); err == nil || !strings.Contains(err.Error(), "p.toml:") {
			t.Errorf("%s: err %v, want a located error", name, err)
		}
	}
}
