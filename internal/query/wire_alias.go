package query

import (
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/wire"
)

// Aliases for the mechanical move to internal/wire; the rewrite removes them.
const (
	OpHistory    = wire.OpHistory
	OpSend       = wire.OpSend
	OpAnswer     = wire.OpAnswer
	OpNotifyTest = wire.OpNotifyTest
	OpCreate     = wire.OpCreate
	OpRetire     = wire.OpRetire
	OpContinue   = wire.OpContinue
	OpMetrics    = wire.OpMetrics
	OpAbout      = wire.OpAbout
)

type (
	Request          = wire.Request
	Answer           = wire.Answer
	SendAsk          = wire.SendAsk
	History          = wire.History
	Metrics          = wire.Metrics
	About            = wire.About
	BackendStatus    = wire.BackendStatus
	StoreTrouble     = wire.StoreTrouble
	BusFound         = wire.BusFound
	NotifyTestResult = wire.NotifyTestResult
	BackendResult    = wire.BackendResult
	CreateAsk        = wire.CreateAsk
	WorkerAsk        = wire.WorkerAsk
)

var ErrNoDaemon = wire.ErrNoDaemon

func BackendStatuses(statuses []notify.Status) []BackendStatus {
	return notify.BackendStatuses(statuses)
}
func NotifyTested(s notify.Sent) NotifyTestResult { return notify.Tested(s) }
