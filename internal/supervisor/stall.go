package supervisor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// watchStall nudges a STALLED worker (its pack reads it at work, its screen frozen past
// the pack's stall time and its clock, if any, stopped) with the pack's nudge keys, looks
// again NudgeEvery later, and after Nudges nudges escalates once: a critical
// notification saying how long it has been frozen, its last lines in its history. A
// worker that moves again starts over. Under s.mu.
func (s *Supervisor) watchStall(ctx context.Context, w *wire.Worker, rt *runtime, rec wire.Pane) {
	if rec.State != string(state.Stalled) {
		if rt.nudges > 0 || rt.escalated {
			s.event(w, "unstuck", "it moved again: "+rec.State)
		}
		rt.nudges, rt.escalated = 0, false
		return
	}
	now := s.now()
	if rt.escalated || (rt.nudges > 0 && now.Sub(rt.nudgedAt) < s.config().NudgeEvery) {
		return
	}
	_, pack, _ := s.Pane(w.PaneID)
	frozen := now.Sub(rec.Since) // STALLED since; its screen froze a stall time before
	if pack != nil {
		frozen += pack.Stall.Duration
	}
	frozen = frozen.Round(time.Second)
	if rt.nudges >= s.config().Nudges {
		rt.escalated = true
		lines := s.lastLines(ctx, w.PaneID, 15)
		detail := fmt.Sprintf("frozen for %s after %d nudges", frozen, rt.nudges)
		s.event(w, "escalated", detail, lines...)
		s.notify(w, fmt.Sprintf("%s is frozen (%s)", w.Name, frozen), detail+": "+lastLine(lines))
		return
	}
	rt.nudges++
	rt.nudgedAt = now
	if pack == nil || len(pack.Actions.Nudge) == 0 {
		s.event(w, "nudged", fmt.Sprintf("frozen for %s; its pack has no nudge keys: looked again (%d of %d)", frozen, rt.nudges, s.config().Nudges))
		return
	}
	res := s.Press(ctx, deliver.PressRequest{ID: newID(), PaneID: w.PaneID, Keys: pack.Actions.Nudge, Kind: "nudge",
		Reason: fmt.Sprintf("STALLED for %s", frozen), Gap: keyGap})
	s.event(w, "nudged", fmt.Sprintf("frozen for %s; pressed %s: %s (%d of %d)", frozen,
		strings.Join(pack.Actions.Nudge, " "), res.Outcome, rt.nudges, s.config().Nudges))
}

func lastLine(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
