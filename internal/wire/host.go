package wire

import "time"

// The states of a host of the fleet (Host.State).
const (
	HostConnecting = "connecting" // its first stream is being opened: nothing shows yet
	HostUp         = "up"         // its stream is live: its panes are current
	// HostStale: its stream missed heartbeats; its panes are as last heard, shown stale,
	// and dropped once nothing is heard for the fleet's drop time.
	HostStale       = "stale"
	HostUnreachable = "unreachable" // no stream; Why says why, and it is tried again
	// HostIncompatible: its paneherd speaks another protocol; Why says which way
	// ("paneherd 0.3 too old").
	HostIncompatible = "incompatible"
)

// Host is another machine's daemon as the fleet (@paneherd-hosts) reaches it.
type Host struct {
	Name    string    `json:"name"`
	State   string    `json:"state"`
	Why     string    `json:"why,omitempty"`
	Version string    `json:"version,omitempty"` // its paneherd, once heard
	Since   time.Time `json:"since"`             // in this state since
}
