package deliver

import (
	"context"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// Answer answers a confirmation dialog, only if a fresh look at the screen shows a dialog
// of the pane's pack that offers the choice; then presses exactly that pack's keys and
// checks that the dialog went away.
func (e *Engine) Answer(ctx context.Context, req wire.AnswerRequest) wire.Result {
	return e.AnswerBy(ctx, req, nil)
}

// Verdict is what a Decide says of a dialog: the choice to press ("" presses nothing),
// the rule that decided and why, for the audit. DryRun records the verdict and presses
// nothing.
type Verdict struct {
	Choice, Rule, Why string
	DryRun            bool
}

// Decide chooses the answer to the dialog both looks showed, as an automatic answer
// does (a policy): it decides on the very screen the keys go to.
type Decide func(p Pane, dialog packs.Result) Verdict

// AnswerBy answers as Answer does, with the choice decide makes on the engine's own
// steady look (nil: req.Choice). A verdict that presses nothing is audited only when
// it is a dry run; otherwise the result says why, with outcome NOT_A_DIALOG.
func (e *Engine) AnswerBy(ctx context.Context, req wire.AnswerRequest, decide Decide) wire.Result {
	audit := wire.Trigger{Kind: answerKind(req.Choice), At: time.Now(), Choice: req.Choice}
	res := wire.Result{ID: req.ID, PaneID: req.PaneID}
	done, ok := e.admit(req.PaneID)
	if !ok {
		return e.record(audit, with(res, rateLimited))
	}
	defer done()
	p, _, bad := e.check(ctx, req.PaneID)
	res.Name, audit.Name = p.Name, p.Name
	if bad == nil {
		bad = notWaiting(p)
	}
	if bad != nil {
		return e.record(audit, with(res, bad))
	}
	res, keep := e.answer(ctx, p, req, res, decide, &audit)
	if !keep {
		return res
	}
	return e.record(audit, res)
}

// notWaiting refuses a pane the watcher does not read as waiting on a dialog, as Send
// refuses one not READY. The engine's looks read the whole screen: after a CLI restarted
// below its old dialog, they would take that history for a live dialog.
func notWaiting(p Pane) *wire.Result {
	if p.State != state.NeedsConfirmation {
		return fail(outcome.NotADialog, "the pane is not waiting on a dialog as paneherd reads it: it is %s; nothing pressed", p.State)
	}
	return nil
}

func answerKind(choice string) string {
	if choice == packs.ChoiceDeny {
		return "deny"
	}
	return "approve"
}

// answer looks twice, lets decide choose (when set), presses and verifies. keep says
// whether the audit records it: not a verdict that pressed nothing, unless a dry run.
func (e *Engine) answer(ctx context.Context, p Pane, req wire.AnswerRequest, res wire.Result, decide Decide, audit *wire.Trigger) (wire.Result, bool) {
	dialog, bad := e.dialog(ctx, p)
	if bad != nil {
		return with(res, bad), true
	}
	if decide != nil {
		v := decide(p, dialog)
		req.Choice, audit.Choice, audit.Kind, audit.Rule, audit.Reason = v.Choice, v.Choice, "policy-"+answerKind(v.Choice), v.Rule, v.Why
		if v.DryRun || v.Choice == "" {
			if v.DryRun {
				audit.Kind = "policy-dry-run"
			}
			res.Outcome, res.Detail = outcome.NotADialog, v.Why+"; nothing pressed: "+dialog.Summary
			if v.DryRun {
				res.Outcome = outcome.DryRun
			}
			return res, v.DryRun
		}
	}
	keys, err := p.Pack.DialogKeys(dialog.Rule, req.Choice)
	if err != nil {
		res.Outcome, res.Detail = outcome.NotADialog, err.Error()
		return res, true
	}
	if bad := e.press(ctx, p.ID, keys); bad != nil {
		return with(res, bad), true
	}
	if e.dialogGone(ctx, p, dialog) {
		res.Outcome, res.Detail = outcome.Answered, "pressed "+strings.Join(keys, " ")+" on: "+dialog.Summary
		return res, true
	}
	res.Outcome, res.Detail = outcome.DialogStillShown, "pressed "+strings.Join(keys, " ")+"; the dialog is still there: "+dialog.Summary
	return res, true
}

// steadyLook is the gap between the two looks that must agree before a key is pressed:
// a dialog still being drawn, or one a person is moving through, differs between them.
const steadyLook = 150 * time.Millisecond

// dialog reads the pane afresh, twice, steadyLook apart, and returns the dialog both
// looks show. The engine counts a dialog only when it is the bottom-most interaction
// (packs/present.go), so one left above a redrawn agent is no dialog here.
func (e *Engine) dialog(ctx context.Context, p Pane) (packs.Result, *wire.Result) {
	first, bad := e.lookForDialog(ctx, p)
	if bad != nil {
		return first, bad
	}
	if Sleep(ctx, steadyLook) != nil {
		return first, fail(outcome.NotADialog, "cancelled before the second look; nothing pressed")
	}
	second, bad := e.lookForDialog(ctx, p)
	if bad != nil {
		return second, bad
	}
	if second.Rule != first.Rule || second.Match != first.Match || second.Summary != first.Summary || second.Subject != first.Subject {
		return second, fail(outcome.NotADialog, "the dialog changed between two looks %v apart (still being drawn, or someone is answering it); nothing pressed", steadyLook)
	}
	return second, nil
}

// lookForDialog captures the pane and reads it with its pack.
func (e *Engine) lookForDialog(ctx context.Context, p Pane) (packs.Result, *wire.Result) {
	if p.Pack == nil {
		return packs.Result{}, fail(outcome.NotADialog, "no pack reads this pane")
	}
	sc, _, err := screenNow(ctx, e.Server, p.ID)
	if err != nil {
		return packs.Result{}, fail(outcome.TargetNotFound, "%v", err)
	}
	r := p.Pack.Classify(sc)
	if r.State != state.NeedsConfirmation {
		return r, fail(outcome.NotADialog, "the screen shows no dialog (it reads %s with the %s pack); nothing pressed", r.State, p.Pack.Name)
	}
	return r, nil
}

// dialogGone watches for the answered dialog to leave the screen.
func (e *Engine) dialogGone(ctx context.Context, p Pane, was packs.Result) bool {
	deadline := time.Now().Add(e.config().Verify)
	for time.Now().Before(deadline) {
		sc, _, err := screenNow(ctx, e.Server, p.ID)
		if err != nil {
			return true // the pane went away with its dialog
		}
		r := p.Pack.Classify(sc)
		if r.State != state.NeedsConfirmation || r.Rule != was.Rule || r.Summary != was.Summary {
			return true
		}
		if Sleep(ctx, 100*time.Millisecond) != nil {
			return false
		}
	}
	return false
}
