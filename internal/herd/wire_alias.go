package herd

import "github.com/paneherd/paneherd/internal/wire"

// Aliases for the mechanical move to internal/wire; the rewrite removes them.
type (
	PaneStatus = wire.PaneStatus
	WaitResult = wire.WaitResult
	Created    = wire.Created
)

var (
	ErrNoDaemon = wire.ErrNoDaemon
	ErrNoTarget = wire.ErrNoTarget
	ErrPaneGone = wire.ErrPaneGone
)
