package deliver

import (
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/wire"
)

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

// Aliases for the mechanical move to internal/wire; the rewrite removes them.
type (
	Result        = wire.Result
	SendRequest   = wire.SendRequest
	AnswerRequest = wire.AnswerRequest
)
