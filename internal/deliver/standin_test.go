package deliver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// standIn shows a captured screen in a real pane and records every byte typed into it,
// the way an agent would receive keys. It returns the engine reading it with pack, and
// what the recorder got so far.
func standIn(t *testing.T, fixture, pack string) (*Engine, string, func() string) {
	t.Helper()
	dir := filepath.Join("..", "..", "packs", "testdata", "fixtures")
	if strings.HasPrefix(fixture, "screens/") { // a screen derived from a real one (packs/testdata/screens)
		dir = filepath.Join("..", "..", "packs", "testdata")
	}
	src, err := filepath.Abs(filepath.Join(dir, fixture))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(src); err != nil {
		t.Fatal(err)
	}
	h := tmuxtest.New(t)
	rec := filepath.Join(h.Dir, "received")
	ready := filepath.Join(h.Dir, "shown")
	// -icanon: every key reaches the recorder at once; -echo: typed keys do not redraw the
	// screen, so the screen stays the captured one. The trailing newline is left out, so
	// the top line does not scroll away.
	script := fmt.Sprintf(`stty -icanon -echo min 1; printf '%%s' "$(cat %s)"; : > %s; exec cat > %s`,
		tmux.ShellWord(src), tmux.ShellWord(ready), tmux.ShellWord(rec))
	paneID := h.NewSession("work", "sh -c "+tmux.ShellWord(script))
	tmuxtest.WaitFor(t, 30*time.Second, func() bool { _, err := os.Stat(ready); return err == nil })
	pk, err := packs.Load("").Get(pack)
	if err != nil {
		t.Fatal(err)
	}
	e := New(h.Server, Config{Verify: 500 * time.Millisecond, RateLimit: 100, RateWindow: time.Minute})
	e.Lookup = func(id string) (Pane, bool) {
		return Pane{ID: paneID, Name: "agent", State: state.NeedsConfirmation, Pack: pk}, id == paneID
	}
	received := func() string {
		b, _ := os.ReadFile(rec)
		return string(b)
	}
	return e, paneID, received
}

// TestAnswerPressesNothingButALiveDialog: approve and deny on a screen whose dialog is
// history, or which asks a question only a person can answer, press nothing at all; on
// a live dialog the pack's keys do arrive (so the recorder can tell).
func TestAnswerPressesNothingButALiveDialog(t *testing.T) {
	tests := []struct {
		name, fixture, pack string
		want                outcome.Outcome
		keys                string // bytes the agent must receive for approve
	}{
		{"stale trust dialog above a fresh input box", "gemini/40-READY-after-trust-restart-stale-dialog-above.ansi", "gemini", outcome.NotADialog, ""},
		{"question only a person answers", "claude/40-NEEDS_CONFIRMATION-ask-user-question-dialog.ansi", "claude", outcome.NotADialog, ""},
		{"shell awaiting input", "gemini/42-NEEDS_CONFIRMATION-shell-awaiting-input.ansi", "gemini", outcome.NotADialog, ""},
		{"live permission dialog", "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.ansi", "claude", outcome.DialogStillShown, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, pane, received := standIn(t, tt.fixture, tt.pack)
			for _, choice := range []string{packs.ChoiceApprove, packs.ChoiceDeny} {
				if tt.keys != "" && choice == packs.ChoiceDeny {
					continue // the stand-in never closes its dialog: one answer says enough
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				res := e.Answer(ctx, wire.AnswerRequest{ID: choice, PaneID: pane, Choice: choice})
				cancel()
				if res.Outcome != tt.want {
					t.Errorf("%s: %s (%s), want %s", choice, res.Outcome, res.Detail, tt.want)
				}
			}
			if tt.keys == "" {
				if got := received(); got != "" {
					t.Fatalf("the agent received %q; nothing may be pressed", got)
				}
				return
			}
			tmuxtest.WaitFor(t, 10*time.Second, func() bool { return received() == tt.keys })
		})
	}
}

// TestAnswerPressesNothingInAPaneNotWaiting: a pane the watcher reads as anything but
// NEEDS_CONFIRMATION gets no key, even when the engine's own looks see a dialog (one left
// above a restarted CLI is history to the watcher).
func TestAnswerPressesNothingInAPaneNotWaiting(t *testing.T) {
	e, pane, received := standIn(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.ansi", "claude")
	watched := e.Lookup
	e.Lookup = func(id string) (Pane, bool) {
		p, ok := watched(id)
		p.State = state.Busy
		return p, ok
	}
	for _, choice := range []string{packs.ChoiceApprove, packs.ChoiceDeny} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res := e.Answer(ctx, wire.AnswerRequest{ID: choice, PaneID: pane, Choice: choice})
		cancel()
		if res.Outcome != outcome.NotADialog || !strings.Contains(res.Detail, "BUSY") {
			t.Errorf("%s: %s (%s), want %s naming the pane's state", choice, res.Outcome, res.Detail, outcome.NotADialog)
		}
	}
	if got := received(); got != "" {
		t.Fatalf("the agent received %q; nothing may be pressed", got)
	}
}
