package supervisor

import "github.com/paneherd/paneherd/internal/wire"

// Aliases for the mechanical move to internal/wire; the rewrite removes them.
type Registry = wire.Registry

func ReadRegistry(path string) (Registry, error) { return wire.ReadRegistry(path) }
