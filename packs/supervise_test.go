package packs

import (
	"strings"
	"testing"
)

// The supervisor starts, restarts and retires workers with what the packs say: every
// builtin agent pack names its launch command and the keys that make it quit.
func TestBuiltinAgentPacksCanBeSupervised(t *testing.T) {
	set := Load("")
	if len(set.Problems) > 0 {
		t.Fatal(set.Problems)
	}
	for _, name := range BuiltinNames() {
		p, err := set.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Actions.Interrupt) == 0 {
			t.Errorf("%s: no [actions] interrupt", name)
		}
		if name == "shell" {
			continue // a shell is not launched: it is what a window starts anyway
		}
		if p.Launch.Command == "" || p.Launch.Resume == "" {
			t.Errorf("%s: [launch] command %q, resume %q; want both", name, p.Launch.Command, p.Launch.Resume)
		}
	}
}

func TestSupervisionKeysAreChecked(t *testing.T) {
	const rules = "\n[[rules]]\nname = \"r\"\nstate = \"BUSY\"\nmatch = 'x'\n"
	tests := []struct {
		name, body, want string // want: "" loads
	}{
		{"resume without command", "[launch]\nresume = \"agent --continue\"\n",
			"p.toml:1: [launch] has resume but no command"},
		{"command alone", "[launch]\ncommand = \"agent\"\n", ""},
		{"command and resume", "[launch]\ncommand = \"agent\"\nresume = \"agent --continue\"\n", ""},
		{"an empty interrupt key", "[actions]\ninterrupt = [\"C-c\", \"\"]\n",
			"p.toml:2: [actions] interrupt: key 2 is empty"},
		{"a blank nudge key", "[actions]\nnudge = [\" \"]\n", "p.toml:2: [actions] nudge: key 1 is empty"},
		{"no nudge", "[actions]\ninterrupt = [\"C-c\", \"C-c\"]\nnudge = []\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p", "p.toml", []byte(tt.body+rules))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("loaded; want %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q, want %q", err, tt.want)
			}
		})
	}
}
