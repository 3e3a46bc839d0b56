package herd

import (
	"sort"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

// Which pane needs a person, as the jump key, approve without a target and any other front
// end pick it.

// NextAttention orders the panes needing a person and returns the one after the current
// pane in that order (the first when the current one is not in it), or nil. Panes of
// hosts of the fleet are among them; current is as TargetOf names it.
func NextAttention(panes []wire.Pane, current string, now time.Time) *wire.Pane {
	var queue []wire.Pane
	for _, p := range panes {
		if statusline.Attention(p, now) > 0 {
			queue = append(queue, p)
		}
	}
	sort.SliceStable(queue, func(i, j int) bool {
		ri, rj := statusline.Attention(queue[i], now), statusline.Attention(queue[j], now)
		if ri != rj {
			return ri > rj
		}
		if queue[i].State == string(state.Ready) {
			return queue[i].Since.After(queue[j].Since) // the freshest finish first
		}
		return queue[i].Since.Before(queue[j].Since) // the longest waiting first
	})
	if len(queue) == 0 {
		return nil
	}
	for i, p := range queue {
		if TargetOf(p) == current {
			return &queue[(i+1)%len(queue)]
		}
	}
	return &queue[0]
}

// LongestWaiting returns the current pane if it waits, else the pane waiting longest.
func LongestWaiting(panes []wire.Pane, current string) *wire.Pane {
	var waiting []wire.Pane
	for _, p := range panes {
		if p.State == string(state.NeedsConfirmation) {
			if p.ID == current {
				return &p
			}
			waiting = append(waiting, p)
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	sort.SliceStable(waiting, func(i, j int) bool { return waiting[i].Since.Before(waiting[j].Since) })
	return &waiting[0]
}
