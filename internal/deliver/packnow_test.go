package deliver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// TestAnswerReadsThePackJustNamed: right after `tmux set -p @paneherd-pack NAME`, before
// the watcher has looked again, approve's fresh look reads the screen with that pack.
func TestAnswerReadsThePackJustNamed(t *testing.T) {
	h := tmuxtest.New(t)
	fixture, _ := filepath.Abs("../../packs/testdata/fixtures/codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	pane := h.NewSession("work", "cat '"+fixture+"'; exec sleep 100000")
	tmuxtest.WaitFor(t, 30*time.Second, func() bool {
		return strings.Contains(h.Run("capture-pane", "-p", "-t", pane), "hello-from-fake-model")
	})
	set := packs.Load("")
	old, err := set.Get("shell")
	if err != nil {
		t.Fatal(err)
	}
	e := New(h.Server, Config{Verify: 300 * time.Millisecond, RateLimit: 10, RateWindow: time.Minute})
	e.Packs = set
	e.Lookup = func(id string) (Pane, bool) {
		return Pane{ID: pane, Name: "api", State: state.NeedsConfirmation, Pack: old}, id == pane
	}
	h.Run("set-option", "-p", "-t", pane, "@paneherd-pack", "codex")
	res := e.Answer(context.Background(), wire.AnswerRequest{ID: "t1", PaneID: pane, Choice: packs.ChoiceApprove})
	if !strings.Contains(res.Detail, "hello-from-fake-model") {
		t.Errorf("answered with the pack the watcher had: %s %s", res.Outcome, res.Detail)
	}
}
