package tmux_test

import (
	"context"
	"testing"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestOptionRoundTrip(t *testing.T) {
	h := tmuxtest.New(t)
	ctx := context.Background()
	if got, err := h.Server.ShowOption(ctx, "@paneherd-unset"); got != "" || err != nil {
		t.Errorf("unset option = %q, %v; want empty", got, err)
	}
	for _, value := range []string{"plain", "ends;", `ends\;`, ";", "-5", "#{pane_id} #(date)", "two words", ""} {
		if err := h.Server.SetOption(ctx, "@paneherd-test", value); err != nil {
			t.Fatalf("SetOption(%q): %v", value, err)
		}
		if got, err := h.Server.ShowOption(ctx, "@paneherd-test"); got != value || err != nil {
			t.Errorf("ShowOption after SetOption(%q) = %q, %v", value, got, err)
		}
	}
}

func TestVersion(t *testing.T) {
	h := tmuxtest.New(t)
	major, minor, err := h.Server.Version(context.Background())
	if err != nil || major < 3 || minor < 0 {
		t.Errorf("Version = %d.%d, %v; want 3.x or later", major, minor, err)
	}
}
