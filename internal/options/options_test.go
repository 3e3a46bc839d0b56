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

func TestLoadRejectsBadValuesWithAReason(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "")
	h.Run("set-option", "-g", Prefix+"status-mode", "Job")
	h.Run("set-option", "-g", Prefix+"tick", "fast")
	h.Run("set-option", "-g", Prefix+"notify-pane-limit", "-1")
	got, err := Load(context.Background(), h.Server)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Push() || got.Get("tick") != "1s" || got.Notify().PerPane != 3 {
		t.Errorf("bad values were not replaced by defaults: mode push=%v tick %q", got.Push(), got.Get("tick"))
	}
	all := strings.Join(got.Problems, "\n")
	for _, want := range []string{`@paneherd-status-mode "Job" is not one of push, job`, `@paneherd-tick "fast" is not a duration`, "notify-pane-limit"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems %q lack %q", got.Problems, want)
		}
	}
}
