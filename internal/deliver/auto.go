package deliver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/policy"
	"github.com/paneherd/paneherd/internal/ratelimit"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// Auto answers dialogs by a policy, through the engine's one answer path (AnswerBy):
// the same two looks, keys and audit as `paneherd approve`, with the decision made on
// the engine's own look. It presses the pack's approve choice (never always) or deny.
type Auto struct {
	Engine *Engine
	Window time.Duration // the span of Rules.Limit

	mu     sync.Mutex
	recent ratelimit.Window // pane -> its automatic answers
	now    func() time.Time
}

// Rules are what one automatic answer goes by, taken together when it starts so a reload
// changes none of them under it: the policy, at most Limit automatic answers per pane
// within the Window (past it the pane's dialogs ask), and whether it only records.
type Rules struct {
	File   *policy.File
	Limit  int
	DryRun bool
}

// Answered is what an automatic answer came to: the decision (on the engine's look, or
// the rate limit's ask) and the engine's result; Asked when a person must answer.
type Answered struct {
	Decision policy.Decision
	Result   wire.Result
	Summary  string // the dialog's summary as the pack read it
}

// Asked reports whether the person must still answer: the policy asked, the answer
// was a dry run, or the engine pressed nothing or failed.
func (a Answered) Asked() bool {
	return a.Decision.Action == policy.Ask || a.Result.Outcome != outcome.Answered
}

// Apply decides the pane's dialog by the rules and answers it; a dry run records the
// decision and presses nothing. id names the answer in the audit.
func (a *Auto) Apply(ctx context.Context, rules Rules, where policy.Pane, id string) Answered {
	f, dryRun := rules.File, rules.DryRun
	var out Answered
	decide := func(_ Pane, dialog packs.Result) Verdict {
		out.Summary = dialog.Summary
		out.Decision = f.Decide(policy.DialogOf(dialog), where)
		v := Verdict{Rule: out.Decision.Rule, Why: out.Decision.Why, DryRun: dryRun}
		switch out.Decision.Action {
		case policy.Approve:
			v.Choice = packs.ChoiceApprove
		case policy.Deny:
			v.Choice = packs.ChoiceDeny
		}
		if v.Choice != "" && !dryRun && !a.allow(where.ID, rules.Limit) {
			out.Decision = policy.Decision{Action: policy.Ask, Rule: v.Rule,
				Why: fmt.Sprintf("the pane had %d automatic answers within %v: a person answers this one", rules.Limit, a.Window)}
			return Verdict{Rule: v.Rule, Why: out.Decision.Why}
		}
		return v
	}
	out.Result = a.Engine.AnswerBy(ctx, wire.AnswerRequest{ID: id, PaneID: where.ID}, decide)
	if out.Decision.Action == "" { // no steady dialog to decide on: a person's
		out.Decision = policy.Decision{Action: policy.Ask, Why: out.Result.Detail}
	}
	return out
}

// allow notes one more automatic answer at the pane, if under its limit.
func (a *Auto) allow(paneID string, limit int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.recent.Allow(paneID, a.clock(), limit, a.Window)
}

func (a *Auto) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}
