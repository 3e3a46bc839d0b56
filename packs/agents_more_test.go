package packs

import (
	"path/filepath"
	"testing"
)

// TestMoreAgentsLoad holds opencode and Qwen Code to what every agent pack needs.
func TestMoreAgentsLoad(t *testing.T) {
	set := builtinSet(t)
	for _, name := range []string{"opencode", "qwen"} {
		p := mustPack(t, set, name)
		if p.Description == "" || len(p.Rules) == 0 || len(p.Actions.Submit) == 0 {
			t.Errorf("%s: description, rules and submit keys are required", name)
		}
		if len(p.Actions.Approve) == 0 || len(p.Actions.Deny) == 0 || p.Stall.Duration == 0 {
			t.Errorf("%s: an agent pack needs approve/deny keys and a stall time", name)
		}
		if p.Detect.Priority <= mustPack(t, set, "shell").Detect.Priority {
			t.Errorf("%s: priority %d must beat the shell pack's", name, p.Detect.Priority)
		}
	}
}

// TestMoreAgentsInputText reads the input box of real screens: a draft is what a person
// typed, a placeholder is not, and a dialog in the box's place is no input box.
func TestMoreAgentsInputText(t *testing.T) {
	set := builtinSet(t)
	tests := []struct {
		pack, file string
		found      bool
		typed      string
	}{
		{"opencode", "opencode/30-READY-welcome-draft-typed.ansi", true, "longcmd please"},
		{"opencode", "opencode/03-READY-slash-command-menu-open.ansi", true, "/"},
		{"opencode", "opencode/01-READY-welcome-empty-prompt.ansi", true, ""},
		{"opencode", "opencode/02-READY-after-short-answer.ansi", false, ""},
		{"opencode", "opencode/19-NEEDS_CONFIRMATION-question-dialog.ansi", false, ""},
		{"opencode", "opencode/21-NEEDS_CONFIRMATION-question-typing-own-answer.ansi", false, ""},
		{"opencode", "opencode/11-NEEDS_CONFIRMATION-bash-permission-dialog.ansi", false, ""},
		{"qwen", "qwen/12-READY-shell-mode-draft.ansi", true, "sleep 30 && echo finished"},
		{"qwen", "qwen/18-BUSY-streaming-with-user-typing-next-message.ansi", true, "next thing to do"},
		{"qwen", "qwen/02-READY-after-short-answer.ansi", true, ""},
		{"qwen", "qwen/03-READY-slash-command-menu-open.ansi", true, "/"},
		{"qwen", "qwen/09-NEEDS_CONFIRMATION-shell-permission-dialog.ansi", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			typed, found := mustPack(t, set, tt.pack).InputText(readScreen(t, filepath.Join(fixturesDir, tt.file)))
			if found != tt.found || typed != tt.typed {
				t.Errorf("InputText = %q, %v; want %q, %v", typed, found, tt.typed, tt.found)
			}
		})
	}
}
