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

// TestMoreAgentsForProcesses uses the process trees seen under real panes (ps -o args).
func TestMoreAgentsForProcesses(t *testing.T) {
	set := builtinSet(t)
	tests := []struct {
		name  string
		fg    string
		procs []Process
		want  string
	}{
		{"opencode native", "opencode", []Process{{Name: "bash", Args: []string{"-bash"}}, {Name: "opencode", Args: []string{"opencode"}}}, "opencode"},
		{"opencode running a tool shell", "bash", []Process{{Name: "bash"}, {Name: "opencode", Args: []string{"opencode"}}, {Name: "bash", Args: []string{"bash", "-c", "sleep 40 && echo finished"}}, {Name: "sleep", Args: []string{"sleep", "40"}}}, "opencode"},
		{"opencode from a node launcher", "node", []Process{{Name: "node", Args: []string{"node", "/usr/lib/node_modules/opencode-ai/bin/opencode"}}}, "opencode"},
		{"qwen under node", "node", []Process{{Name: "bash"}, {Name: "node", Args: []string{"node", "/home/u/.npm-global/bin/qwen"}}, {Name: "node", Args: []string{"/usr/bin/node", "/home/u/.npm-global/bin/qwen"}}}, "qwen"},
		{"qwen package path", "node", []Process{{Name: "node", Args: []string{"node", "/usr/lib/node_modules/@qwen-code/qwen-code/cli.js", "--resume"}}}, "qwen"},
		{"a file named like it is not it", "vim", []Process{{Name: "vim", Args: []string{"vim", "notes/qwen-ideas.md"}}}, ""},
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
