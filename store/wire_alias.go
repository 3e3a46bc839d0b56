package store

import "github.com/paneherd/paneherd/internal/wire"

// Aliases for the mechanical move to internal/wire; the rewrite removes them.
type (
	Pane         = wire.Pane
	Transition   = wire.Transition
	Notification = wire.Notification
	Trigger      = wire.Trigger
	Queued       = wire.Queued
	Worker       = wire.Worker
	WorkerEvent  = wire.WorkerEvent
)
