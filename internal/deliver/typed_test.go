package deliver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
)

// TestTypedSaysWhetherKeysWent: a send reports Typed once it has pasted, whatever
// happens after, and not when it stopped before: only such a prompt may be sent again.
func TestTypedSaysWhetherKeysWent(t *testing.T) {
	pack := shellPack(t)
	pack.Actions.SubmitDelay.Duration = 2 * time.Second // time to cut the send short
	r := newModeRig(t, "emacs", "", pack)
	r.waitLastLine(prompt)
	send := func(ctx context.Context, id string) Result {
		return r.engine.Send(ctx, SendRequest{ID: id, PaneID: r.pane, Text: "echo typed", Force: true, Reason: "test"})
	}

	r.enter([][]string{{"copy-mode"}})
	if res := send(context.Background(), "in-mode"); res.Outcome != OperatorBusy || res.Typed {
		t.Errorf("a send to a pane in copy mode = %s typed=%v; want OPERATOR_BUSY, not typed", res.Outcome, res.Typed)
	}
	r.leaveMode()

	cancelled, stop := context.WithCancel(context.Background())
	stop()
	if res := send(cancelled, "cancelled"); res.Typed {
		t.Errorf("a send whose ctx ended before it began = %s typed=%v; want not typed", res.Outcome, res.Typed)
	}

	// The daemon stops between the paste and the Enter.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan Result, 1)
	go func() { done <- send(ctx, "cut-short") }()
	r.waitLastLine(prompt + " echo typed")
	stop()
	select {
	case res := <-done:
		if res.Outcome == Delivered || !res.Typed {
			t.Errorf("a send cut short after its paste = %s typed=%v (%s); want a failure, typed", res.Outcome, res.Typed, res.Detail)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the send did not end when its ctx did")
	}
	r.tmux.Run("send-keys", "-t", r.pane, "C-u")
	r.waitLastLine(prompt)

	if res := send(context.Background(), "delivered"); res.Outcome != Delivered || !res.Typed {
		t.Errorf("a send to an idle shell = %s typed=%v (%s); want DELIVERED, typed", res.Outcome, res.Typed, res.Detail)
	}
}

// TestPasteRefusedPutsNothingInThePane: what pasteRefused counts as refused leaves the
// pane as it was; a paste cut short is not counted so.
func TestPasteRefusedPutsNothingInThePane(t *testing.T) {
	r := newModeRig(t, "emacs", "", shellPack(t))
	r.waitLastLine(prompt)
	p, _ := r.engine.Lookup(r.pane)
	r.enter([][]string{{"copy-mode"}})
	bad := r.engine.paste(context.Background(), p, "in-mode", "echo refused")
	r.leaveMode()
	if bad == nil || !pasteRefused(bad) {
		t.Errorf("a paste into copy mode = %+v; want a refusal", bad)
	}
	if got := r.lastLine(); got != prompt {
		t.Errorf("a refused paste put %q at the prompt", got)
	}
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	if bad := r.engine.paste(cancelled, p, "cancelled", "echo x"); bad == nil || pasteRefused(bad) {
		t.Errorf("a paste cut short = %+v; want a failure not known to have typed nothing", bad)
	}
}

// TestAgentsOnlyTypesNothingIntoAShell: a send for agents only (MCP's send_prompt by
// default) finds a plain shell at its look and types nothing; the same send to a pane an
// agent's pack reads goes.
func TestAgentsOnlyTypesNothingIntoAShell(t *testing.T) {
	shell := shellPack(t)
	r := newModeRig(t, "emacs", "", shell)
	r.waitLastLine(prompt)
	req := SendRequest{ID: "to-shell", PaneID: r.pane, Text: "echo typed", Force: true, Reason: "test", AgentsOnly: true}
	res := r.engine.Send(context.Background(), req)
	if res.Outcome != SendKeysError || res.Typed || !strings.Contains(res.Detail, "@paneherd-mcp-send any") {
		t.Errorf("an agents-only send to a shell = %s typed=%v %q; want SEND_KEYS_ERROR naming the option, not typed", res.Outcome, res.Typed, res.Detail)
	}
	if got := r.lastLine(); got != prompt {
		t.Errorf("the shell's line is %q after a refused send", got)
	}

	agent := *shell
	agent.Name = "agent" // read as the shell is, but an agent's pack
	r.engine.Lookup = func(id string) (Pane, bool) {
		return Pane{ID: r.pane, Name: "worker", State: state.Ready, Pack: &agent}, id == r.pane
	}
	req.ID = "to-agent"
	if res := r.engine.Send(context.Background(), req); res.Outcome != Delivered {
		t.Errorf("an agents-only send to an agent's pane = %s %q; want DELIVERED", res.Outcome, res.Detail)
	}
}
