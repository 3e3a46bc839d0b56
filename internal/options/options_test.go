package options

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestLoadReadsSetOptionsExactly(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "")
	values := map[string]string{
		"format":      `[{name} "q" 'x' \ é $HOME %H #{pane_id};]`,
		"style-ready": "",
		"tick":        "250ms",
	}
	for name, v := range values {
		h.Run("set-option", "-g", Prefix+name, v)
	}
	got, err := Load(context.Background(), h.Server)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range values {
		if got.Get(name) != want {
			t.Errorf("%s = %q, want %q", name, got.Get(name), want)
		}
	}
	if got.Get("style-busy") != "fg=yellow" {
		t.Errorf("an unset option lost its default: %q", got.Get("style-busy"))
	}
}

func TestREADMEListsEveryOption(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range All {
		row := "| `" + Prefix + o.Name + "` | `" + o.Default + "` |"
		if o.Default == "" {
			row = "| `" + Prefix + o.Name + "` | |"
		}
		if !strings.Contains(string(readme), row) {
			t.Errorf("README has no options-table row starting %q", row)
		}
	}
}
