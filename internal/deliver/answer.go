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
	kind := "approve"
	if req.Choice == packs.ChoiceDeny {
		kind = "deny"
	}
	audit := wire.Trigger{Kind: kind, At: time.Now(), Choice: req.Choice}
	res := wire.Result{ID: req.ID, PaneID: req.PaneID}
	done, ok := e.admit(req.PaneID)
	if !ok {
		return e.record(audit, with(res, rateLimited))
	}
	defer done()
	p, _, bad := e.check(ctx, req.PaneID)
	res.Name, audit.Name = p.Name, p.Name
	if bad != nil {
		return e.record(audit, with(res, bad))
	}
	return e.record(audit, e.answer(ctx, p, req, res))
}

func (e *Engine) answer(ctx context.Context, p Pane, req wire.AnswerRequest, res wire.Result) wire.Result {
	dialog, bad := e.dialog(ctx, p)
	if bad != nil {
		return with(res, bad)
	}
	keys, err := p.Pack.DialogKeys(dialog.Rule, req.Choice)
	if err != nil {
		res.Outcome, res.Detail = outcome.NotADialog, err.Error()
		return res
	}
	if bad := e.press(ctx, p.ID, keys); bad != nil {
		return with(res, bad)
	}
	if e.dialogGone(ctx, p, dialog) {
		res.Outcome, res.Detail = outcome.Answered, "pressed "+strings.Join(keys, " ")+" on: "+dialog.Summary
		return res
	}
	res.Outcome, res.Detail = outcome.DialogStillShown, "pressed "+strings.Join(keys, " ")+"; the dialog is still there: "+dialog.Summary
	return res
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
	if second.Rule != first.Rule || second.Match != first.Match || second.Summary != first.Summary {
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
