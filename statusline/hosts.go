package statusline

import (
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// StaleMark follows a host's name on its panes while they are as last heard, not
// current (HostStale, or the stream lost): "[devbox~/api: BUSY]", drawn dim.
const StaleMark = "~"

// staleStyle replaces the states' styles on stale panes: a state last heard is not one
// to act on.
const staleStyle = "dim"

// problem is what the line says of a host in place of its panes ("": nothing).
func problem(h wire.Host) string {
	switch h.State {
	case wire.HostUnreachable:
		return "unreachable"
	case wire.HostIncompatible:
		return h.Why
	}
	return ""
}

// hostParts renders each host's part of the line, in the order of hosts: its problem,
// if any, and its panes as last heard, stale unless its stream is up.
func hostParts(hosts []wire.Host, remote []wire.Pane, opts Options, now time.Time) []string {
	var parts []string
	for _, h := range hosts {
		if p := problem(h); p != "" {
			parts = append(parts, styled("["+Escape(h.Name)+": "+Escape(p)+"]", opts.Styles["OFFLINE"]))
		}
		label, hostOpts := Escape(h.Name), opts
		if h.State != wire.HostUp {
			label += StaleMark
			if opts.Layout == LayoutCompact { // a badge's label is inside the badge's style
				label = styled(label, staleStyle)
			}
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
func panesOf(panes []wire.Pane, host string) []wire.Pane {
	var out []wire.Pane
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
