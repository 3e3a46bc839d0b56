package store

import "errors"

var (
	// ErrLocked is returned by Open when another process holds the database
	// file's lock for longer than Options.LockTimeout. Only the daemon opens
	// the database, so this means a daemon for the same tmux server is
	// already running.
	ErrLocked = errors.New("database is locked by another process: paneherd is already running")

	// ErrNoPaneID is returned by Apply when a pane, a deletion or a
	// transition in the batch has an empty pane id.
	ErrNoPaneID = errors.New("empty pane id")

	// errCorrupt marks an Open failure that means the file is not a
	// paneherd database we can use (damaged, truncated, foreign, or from a
	// newer paneherd), so Open moves it aside instead of failing.
	errCorrupt = errors.New("not a usable paneherd database")
)
