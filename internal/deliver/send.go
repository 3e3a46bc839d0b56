package deliver

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/statusline"
)

// Send delivers a prompt: checks, defers to a person, pastes, submits, acknowledges,
// retries, and audits what happened.
func (e *Engine) Send(ctx context.Context, req wire.SendRequest) wire.Result {
	defer e.phase(req.PaneID, req.ID, PhaseDone)
	text, err := Payload(req)
	audit := wire.Trigger{Kind: "send", At: time.Now(), SHA256: Digest(text), Length: len(text), Forced: req.Force,
		Reason: req.Reason, Envelope: req.Envelope}
	res := wire.Result{ID: req.ID, PaneID: req.PaneID}
	if err != nil {
		res.Outcome, res.Detail = outcome.SendKeysError, err.Error()
		return e.record(audit, res)
	}
	done, ok := e.admit(req.PaneID)
	if !ok {
		return e.record(audit, with(res, rateLimited))
	}
	defer done()
	res = e.send(ctx, req, text, res)
	if p, ok := e.Lookup(req.PaneID); ok {
		audit.Name = p.Name
		res.Name = p.Name
	}
	return e.record(audit, res)
}

func (e *Engine) send(ctx context.Context, req wire.SendRequest, text string, res wire.Result) wire.Result {
	p, bad := e.ready(ctx, req)
	if bad != nil {
		return with(res, bad)
	}
	if !req.Force {
		if bad := e.deferToPerson(ctx, req.PaneID); bad != nil {
			return with(res, bad)
		}
		// The person may have typed into this very pane while we waited.
		if p, bad = e.ready(ctx, req); bad != nil {
			return with(res, bad)
		}
	}
	return e.deliver(ctx, p, req, text, res)
}

func with(res wire.Result, bad *wire.Result) wire.Result {
	res.Outcome, res.Detail = bad.Outcome, bad.Detail
	return res
}

// ready checks that a prompt may go into the pane now: it is there, alive, an agent's
// when the request asks, READY, not in a mode, and its input box holds nothing a person
// typed.
func (e *Engine) ready(ctx context.Context, req wire.SendRequest) (Pane, *wire.Result) {
	paneID := req.PaneID
	p, _, bad := e.check(ctx, paneID)
	if bad != nil {
		return p, bad
	}
	packName := ""
	if p.Pack != nil {
		packName = p.Pack.Name
	}
	if bad := ShellRefused(req, packName); bad != nil {
		return p, bad
	}
	if p.State != state.Ready {
		return p, fail(outcome.NotReady, "the pane is %s, not READY (--queue delivers when it is)", p.State)
	}
	sc, _, err := screenNow(ctx, e.Server, paneID)
	if err != nil {
		return p, fail(outcome.TargetNotFound, "%v", err)
	}
	if p.Pack == nil {
		return p, nil
	}
	// The watcher looked up to a tick ago: a dialog that has appeared since would take the
	// paste and its Enter. Judge the screen as it is now.
	if r := p.Pack.Classify(sc); r.State != state.Ready {
		return p, fail(outcome.NotReady, "the pane now shows %s (%s)", r.State, clip(r.Summary))
	}
	if draft, _ := p.Pack.InputText(sc); draft != "" {
		return p, fail(outcome.OperatorBusy, "the input box holds text a person typed: %q", clip(draft))
	}
	return p, nil
}

// deferToPerson waits until nobody has typed in the pane's session for the quiet window,
// looking again every Recheck, for at most DeferMax.
func (e *Engine) deferToPerson(ctx context.Context, paneID string) *wire.Result {
	cfg := e.config()
	start := time.Now()
	for {
		now, err := inspect(ctx, e.Server, paneID)
		if err != nil || !now.found {
			return fail(outcome.TargetNotFound, "pane %s is gone", paneID)
		}
		idle := time.Since(now.lastActivity)
		if idle >= cfg.Quiet {
			return nil
		}
		if time.Since(start) >= cfg.DeferMax {
			return fail(outcome.DeferTimeout, "a person kept typing in the session for %s (last %s ago); --force --reason sends anyway", cfg.DeferMax, idle.Round(time.Second))
		}
		if Sleep(ctx, min(cfg.Recheck, cfg.Quiet-idle+time.Second/2)) != nil {
			return fail(outcome.DeferTimeout, "cancelled while deferring")
		}
	}
}

// deliver pastes and submits, then waits for the acknowledgement, retrying with backoff.
// Typing is the point of no return: from the paste on, the send goes on whatever its
// asker does (finishing), and every paste and submit runs to its end, bounded by the
// server's deadline for a tmux command.
func (e *Engine) deliver(ctx context.Context, p Pane, req wire.SendRequest, text string, res wire.Result) wire.Result {
	cfg := e.config()
	before, _ := capture(ctx, e.Server, p.ID)
	ack := newAckMark(req.Envelope, screen.Parse(before).Text(), text)
	if ctx.Err() != nil || e.life.Err() != nil {
		return with(res, fail(outcome.SendKeysError, "cancelled before the prompt was typed"))
	}
	ctx, done := e.finishing(ctx)
	defer done()
	whole := context.WithoutCancel(ctx)
	e.phase(p.ID, req.ID, PhaseTriggering)
	res.Typed = true // from here on, keys may reach the pane
	if bad := e.paste(whole, p, req.ID, text); bad != nil {
		res.Typed = !pasteRefused(bad)
		return with(res, bad)
	}
	if bad := e.submit(whole, p); bad != nil {
		return with(res, unsubmitted(bad))
	}
	e.phase(p.ID, req.ID, PhaseAwaitingAck)
	for attempt := 0; ; attempt++ {
		acked, pending := e.awaitAck(ctx, p, before, text, ack, cfg.AckTimeout)
		if acked {
			res.Outcome, res.Retries = outcome.Delivered, attempt
			return res
		}
		if ctx.Err() != nil {
			return e.stopped(p, before, text, ack, res, attempt)
		}
		if attempt == len(cfg.Backoff) {
			res.Outcome, res.Retries = outcome.AckTimeout, attempt
			res.Detail = fmt.Sprintf("no sign of the prompt being taken after %d tries", attempt+1) + e.fallback(ctx, p, req, text)
			return res
		}
		if Sleep(ctx, cfg.Backoff[attempt]) != nil {
			return e.stopped(p, before, text, ack, res, attempt)
		}
		// The prompt sits in the box unsubmitted (an Enter read as a newline): submit
		// again. Otherwise keep waiting: tmux took the paste, and pasting again could
		// hand a slow CLI the prompt twice.
		if !pending {
			continue
		}
		if bad := e.submit(whole, p); bad != nil {
			res.Retries = attempt + 1
			return with(res, unsubmitted(bad))
		}
	}
}

// stopLook is how long a send the engine stopped (Stop) still watches its submitted
// prompt being taken: an agent goes BUSY, a shell runs it, within a fraction of that.
const stopLook = time.Second

// stopped ends a send whose acknowledgement the engine stopped waiting for: DELIVERED if
// the prompt is seen taken within stopLook, else INTERRUPTED.
func (e *Engine) stopped(p Pane, before, text string, ack ackMark, res wire.Result, retries int) wire.Result {
	res.Retries = retries
	if acked, _ := e.awaitAck(context.Background(), p, before, text, ack, stopLook); acked {
		res.Outcome, res.Detail = outcome.Delivered, ""
		return res
	}
	res.Outcome = outcome.Interrupted
	res.Detail = "the daemon stopped before the prompt was seen taken: it was typed and submitted; look at the pane before sending it again"
	return res
}

// unsubmitted says that the prompt was pasted and then could not be submitted.
func unsubmitted(bad *wire.Result) *wire.Result {
	return &wire.Result{Outcome: bad.Outcome, Detail: "the prompt is in the input box, not submitted: " + bad.Detail}
}

// paste loads the text into a named buffer over stdin (no argument length limit, no
// shell) and pastes it as one bracketed paste, in one tmux call that also takes the last
// look at the pane (see guarded).
func (e *Engine) paste(ctx context.Context, p Pane, id, text string) *wire.Result {
	buf := "paneherd-" + id
	load := []string{"load-buffer", "-b", buf, "-"}
	// -p: bracketed paste if the program asked for it; -r: keep LF (no CR per line,
	// which would submit each line); -d: delete the buffer after.
	paste := []string{"paste-buffer", "-p", "-r", "-d", "-b", buf, "-t", p.ID}
	bad := e.guarded(ctx, strings.NewReader(text), p.ID, [][]string{load}, [][]string{paste})
	if bad != nil {
		// Refused, or failed after loading: the buffer must not outlive the action, even
		// one cut short by its context (Ctrl-C, shutdown).
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_, _ = e.Server.Run(cleanup, nil, "delete-buffer", "-b", buf)
	}
	return bad
}

// pasteRefused reports a failed paste that certainly put nothing into the pane: the
// guard's look refused it (a mode, a dead pane) or the pane was gone. Any other failure
// (tmux cut short at a deadline, say) may have come after tmux pasted.
func pasteRefused(bad *wire.Result) bool {
	switch bad.Outcome {
	case outcome.OperatorBusy, outcome.PaneDead, outcome.TargetNotFound:
		return true
	}
	return false
}

// submit presses the pack's submit keys after its pause: Codex reads keys arriving
// together as part of the paste.
func (e *Engine) submit(ctx context.Context, p Pane) *wire.Result {
	keys, delay := []string{"Enter"}, 150*time.Millisecond
	if p.Pack != nil {
		if len(p.Pack.Actions.Submit) > 0 {
			keys = p.Pack.Actions.Submit
		}
		delay = p.Pack.Actions.SubmitDelay.Duration
	}
	if err := Sleep(ctx, delay); err != nil {
		return fail(outcome.SendKeysError, "submit: %v", err)
	}
	return e.press(ctx, p.ID, keys)
}

// awaitAck watches the pane for the prompt being taken: it went BUSY, or its screen
// changed and the input box no longer holds the prompt, or the worker wrote the
// envelope's acknowledgement. pending reports the prompt still sitting in the input box
// at the end.
func (e *Engine) awaitAck(ctx context.Context, p Pane, before, text string, ack ackMark, timeout time.Duration) (acked, pending bool) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		// As in ready: with a shell in front, a line at its prompt is a draft, not a
		// command running; the prompt pasted and not yet submitted must not read BUSY.
		sc, raw, err := screenNow(ctx, e.Server, p.ID)
		if err != nil {
			return false, false
		}
		if ack.on(sc.Text()) {
			return true, false
		}
		if p.Pack != nil {
			if p.Pack.Classify(sc).State == state.Busy {
				return true, false
			}
		}
		pending = holdsPrompt(p, sc, text)
		if raw != before && !pending {
			return true, false
		}
		if Sleep(ctx, 100*time.Millisecond) != nil {
			return false, pending
		}
	}
	return false, pending
}

// holdsPrompt reports whether the pane's input box shows the start of the prompt, or a
// pasted-text marker standing for it (Claude Code folds long pastes into
// "[Pasted text #1 +12 lines]").
func holdsPrompt(p Pane, sc screen.Screen, text string) bool {
	if p.Pack == nil {
		return false
	}
	box, _ := p.Pack.InputText(sc)
	if strings.Contains(box, "[Pasted text") {
		return true
	}
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSpace(first)
	return box != "" && first != "" && strings.HasPrefix(box, first[:min(len(first), 20)])
}

// fallback runs the pack's fallback command after an unacknowledged prompt, and says
// how it went.
func (e *Engine) fallback(ctx context.Context, p Pane, req wire.SendRequest, text string) string {
	if p.Pack == nil || p.Pack.Actions.Fallback == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", p.Pack.Actions.Fallback)
	cmd.Env = append(cmd.Environ(), "PANEHERD_PANE="+p.ID, "PANEHERD_TRIGGER="+req.ID, "PANEHERD_PROMPT="+text,
		"PANEHERD_ENVELOPE="+req.Envelope)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("; fallback failed: %v: %s", err, clip(string(out)))
	}
	return "; fallback command ran"
}

// clip shortens a screen's text for a detail message, by runes.
func clip(s string) string {
	return statusline.Clip(strings.Join(strings.Fields(s), " "), 80)
}

// ShellRefused is the refusal of an agents-only send (SendRequest.AgentsOnly) at a pane
// whose pack is the plain shell's, or none: a shell runs whatever it is typed. nil when the
// send may go. The queue asks it when a prompt is queued, the send's own look when it goes.
func ShellRefused(req wire.SendRequest, pack string) *wire.Result {
	if !req.AgentsOnly || (pack != "" && pack != packs.Shell) {
		return nil
	}
	return &wire.Result{ID: req.ID, PaneID: req.PaneID, Outcome: outcome.SendKeysError, Detail: "the pane runs a plain shell, which runs whatever it is typed; " +
		"this send is for agents only (tmux set -g @paneherd-mcp-send any allows any pane)"}
}
