package statusline

import (
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// Which panes get a badge (@paneherd-show).
const (
	ShowAll       = "all"
	ShowActive    = "active"    // not plain shells idle at their prompt
	ShowAttention = "attention" // only panes a person is needed at (Attention > 0)
)

// shellPack is the pack of plain shells, whose READY is no news.
const shellPack = "shell"

// Attention says how urgently a person is needed at a pane: a dialog, an error, a stall,
// an agent newly READY; 0: not at all (state.Attention). The jump key, approve without a
// target and `@paneherd-show attention` all use it.
func Attention(p wire.Pane, now time.Time) int {
	return state.Attention(state.State(p.State), p.Pack != shellPack, p.Since, now)
}

// shown reports whether the pane gets a badge at now.
func (o Options) shown(p wire.Pane, now time.Time) bool {
	switch o.Show {
	case ShowActive:
		return p.Pack != shellPack || p.State != string(state.Ready)
	case ShowAttention:
		return Attention(p, now) > 0
	}
	return true
}

// NextChange is when which panes are shown changes while no pane changes state (an
// agent's READY stops being news), and the pane it is; zero when never. The daemon
// renders the line again then.
func (o Options) NextChange(panes []wire.Pane, now time.Time) (string, time.Time) {
	if o.Show != ShowAttention {
		return "", time.Time{}
	}
	var id string
	var next time.Time
	for _, p := range panes {
		if Attention(p, now) != 1 {
			continue
		}
		if ends := p.Since.Add(state.NewlyReady); next.IsZero() || ends.Before(next) {
			id, next = p.ID, ends
		}
	}
	return id, next
}
