package record

import "github.com/paneherd/paneherd/internal/wire"

// Aliases for the mechanical move to internal/wire; the rewrite removes them.
var ErrPaneGone = wire.ErrPaneGone
