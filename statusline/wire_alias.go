package statusline

import "github.com/paneherd/paneherd/internal/wire"

// Aliases for the mechanical move to internal/wire; the rewrite removes them.
type Snapshot = wire.Snapshot

func WriteSnapshot(path string, s Snapshot) error { return wire.WriteSnapshot(path, s) }
func ReadSnapshot(path string) (Snapshot, error)  { return wire.ReadSnapshot(path) }
