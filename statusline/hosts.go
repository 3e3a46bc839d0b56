package statusline

import (
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/store"
)

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

// StaleMark follows a host's name on its panes while they are as last heard, not
// current (HostStale, or the stream lost): "[devbox~/api: BUSY]", drawn dim.
const StaleMark = "~"

// staleStyle replaces the states' styles on stale panes: a state last heard is not one
// to act on.
const staleStyle = "dim"

// problem is what the line says of a host in place of its panes ("": nothing).
func (h Host) problem() string {
	switch h.State {
	case HostUnreachable:
		return "unreachable"
	case HostIncompatible:
		return h.Why
	}
	return ""
}

// hostParts renders each host's part of the line, in the order of hosts: its problem,
// if any, and its panes as last heard, stale unless its stream is up.
func hostParts(hosts []Host, remote []store.Pane, opts Options, now time.Time) []string {
	var parts []string
	for _, h := range hosts {
		if p := h.problem(); p != "" {
			parts = append(parts, styled("["+Escape(h.Name)+": "+Escape(p)+"]", opts.Styles["OFFLINE"]))
		}
		label, hostOpts := Escape(h.Name), opts
		if h.State != HostUp {
			label += StaleMark
			hostOpts.Styles = make(map[string]string, len(state.All))
			for _, st := range state.All {
				hostOpts.Styles[string(st)] = staleStyle
			}
		}
		if part := renderPanes(panesOf(remote, h.Name), label, hostOpts, now); part != "" {
			parts = append(parts, part)
		}
	}
	return parts
}

// panesOf is the panes of host.
func panesOf(panes []store.Pane, host string) []store.Pane {
	var out []store.Pane
	for _, p := range panes {
		if p.Host == host {
			out = append(out, p)
		}
	}
	return out
}

func styled(text, style string) string {
	if style == "" {
		return text
	}
	return "#[" + style + "]" + text + "#[default]"
}

func joinParts(parts []string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, " ")
}
