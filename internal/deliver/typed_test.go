package deliver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// TestTypedSaysWhetherKeysWent: a send reports Typed once it has pasted, whatever
// happens after, and not when it stopped before: only such a prompt may be sent again.
func TestTypedSaysWhetherKeysWent(t *testing.T) {
	pack := shellPack(t)
	pack.Actions.SubmitDelay.Duration = 2 * time.Second // time to cut the send short
	r := newModeRig(t, "emacs", "", pack)
	r.waitLastLine(prompt)
	// The audit says it too: a queued prompt whose send typed nothing may go back to the
	// queue after the daemon dies.
	var audited wire.Trigger
	r.engine.Audit = func(tr wire.Trigger) error { audited = tr; return nil }
	send := func(ctx context.Context, id string) wire.Result {
		t.Helper()
		res := r.engine.Send(ctx, wire.SendRequest{ID: id, PaneID: r.pane, Text: "echo typed", Force: true, Reason: "test"})
		if audited.ID != id || audited.Typed != res.Typed {
			t.Errorf("%s: audited %s typed=%v; want typed=%v as its result", id, audited.ID, audited.Typed, res.Typed)
		}
		return res
	}

	r.enter([][]string{{"copy-mode"}})
	if res := send(context.Background(), "in-mode"); res.Outcome != outcome.OperatorBusy || res.Typed {
		t.Errorf("a send to a pane in copy mode = %s typed=%v; want OPERATOR_BUSY, not typed", res.Outcome, res.Typed)
	}
	r.leaveMode()

	cancelled, stop := context.WithCancel(context.Background())
	stop()
	if res := send(cancelled, "cancelled"); res.Typed {
		t.Errorf("a send whose ctx ended before it began = %s typed=%v; want not typed", res.Outcome, res.Typed)
	}

	if res := send(context.Background(), "delivered"); res.Outcome != outcome.Delivered || !res.Typed {
		t.Errorf("a send to an idle shell = %s typed=%v (%s); want DELIVERED, typed", res.Outcome, res.Typed, res.Detail)
	}
}

// TestATypedPromptIsSubmittedWhateverTheAsker: once its prompt is pasted, a send submits
// it and follows it to its outcome, though its asker hangs up (an MCP client gone, Ctrl-C
// on send) or the engine stops (the daemon does) between the paste and the Enter: a
// prompt left in the box would wait for whoever presses Enter next, and the audit would
// not say what happened. A stopped engine types nothing more.
func TestATypedPromptIsSubmittedWhateverTheAsker(t *testing.T) {
	pack := shellPack(t)
	pack.Actions.SubmitDelay.Duration = time.Second // time to go between the paste and the Enter
	r := newModeRig(t, "emacs", "", pack)
	r.waitLastLine(prompt)
	dir := t.TempDir()
	sendCut := func(id string) {
		t.Helper()
		ran := filepath.Join(dir, id)
		ctx, hangUp := context.WithCancel(context.Background())
		defer hangUp()
		done := make(chan wire.Result, 1)
		command := "echo ran > " + ran
		go func() {
			done <- r.engine.Send(ctx, wire.SendRequest{ID: id, PaneID: r.pane, Text: command, Force: true, Reason: "test"})
		}()
		r.waitLastLine(prompt + " " + command)
		if id == "asker-gone" {
			hangUp()
		} else {
			r.engine.Stop()
		}
		select {
		case res := <-done:
			if res.Outcome != outcome.Delivered || !res.Typed {
				t.Errorf("%s between the paste and the Enter: %s typed=%v (%s); want DELIVERED, typed", id, res.Outcome, res.Typed, res.Detail)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the send did not end", id)
		}
		if b, err := os.ReadFile(ran); err != nil || string(b) != "ran\n" {
			t.Errorf("%s: the prompt did not run: %q, %v", id, b, err)
		}
		r.waitLastLine(prompt)
	}
	sendCut("asker-gone")
	sendCut("engine-stopped")

	res := r.engine.Send(context.Background(), wire.SendRequest{ID: "after-stop", PaneID: r.pane, Text: "echo late", Force: true, Reason: "test"})
	if res.Outcome == outcome.Delivered || res.Typed {
		t.Errorf("a send after the engine stopped = %s typed=%v; want a failure, nothing typed", res.Outcome, res.Typed)
	}
	if got := r.lastLine(); got != prompt {
		t.Errorf("a send after the engine stopped left %q at the prompt", got)
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
	req := wire.SendRequest{ID: "to-shell", PaneID: r.pane, Text: "echo typed", Force: true, Reason: "test", AgentsOnly: true}
	res := r.engine.Send(context.Background(), req)
	if res.Outcome != outcome.SendKeysError || res.Typed || !strings.Contains(res.Detail, "@paneherd-mcp-send any") {
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
	if res := r.engine.Send(context.Background(), req); res.Outcome != outcome.Delivered {
		t.Errorf("an agents-only send to an agent's pane = %s %q; want DELIVERED", res.Outcome, res.Detail)
	}
}
