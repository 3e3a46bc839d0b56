package daemon

import (
	"slices"
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
)

// TestEveryOpHasAHandler ties wire.Ops to the daemon's table: an operation the front
// ends can ask has a handler, and a handler answers an operation they know of.
func TestEveryOpHasAHandler(t *testing.T) {
	handlers := (&Daemon{}).handlers()
	for _, op := range wire.Ops {
		if handlers[op] == nil {
			t.Errorf("wire.Ops has %q, which the daemon has no handler for", op)
		}
	}
	for op := range handlers {
		if !slices.Contains(wire.Ops, op) {
			t.Errorf("the daemon has a handler for %q, which is not in wire.Ops", op)
		}
	}
}
