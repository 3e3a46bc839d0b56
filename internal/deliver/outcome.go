package deliver

import "github.com/paneherd/paneherd/internal/outcome"

// Outcome is how an action on a pane ended; internal/outcome holds the table of them and
// of their exit codes.
type Outcome = outcome.Outcome

// The outcomes of actions, as delivery names them.
const (
	Delivered          = outcome.Delivered
	Queued             = outcome.Queued
	TargetNotFound     = outcome.TargetNotFound
	PaneDead           = outcome.PaneDead
	SendKeysError      = outcome.SendKeysError
	AckTimeout         = outcome.AckTimeout
	OperatorBusy       = outcome.OperatorBusy
	DeferTimeout       = outcome.DeferTimeout
	TriggerRateLimited = outcome.TriggerRateLimited
	NotReady           = outcome.NotReady
	Answered           = outcome.Answered
	NotADialog         = outcome.NotADialog
	DialogStillShown   = outcome.DialogStillShown
	Interrupted        = outcome.Interrupted
)

// Result is what happened to one action.
type Result struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	PaneID  string  `json:"pane_id"`
	Name    string  `json:"name,omitempty"`
	Detail  string  `json:"detail,omitempty"`
	Retries int     `json:"retries"`
	// Typed: a send got as far as pasting, so the prompt may be in the pane even if it
	// failed after; one that was not typed can be sent again without sending it twice.
	// (Answers leave it false.)
	Typed bool `json:"typed"`
	// AuditError says why the action, done as Outcome says, is missing from the audit
	// (the store failed); "" when it was recorded.
	AuditError string `json:"audit_error,omitempty"`
}
