package deliver

import (
	"context"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/wire"
)

// PressRequest asks for keys to be pressed in a pane for the supervisor: a nudge at a
// frozen worker, the interrupt before a retired worker's pane is killed. Never offered to
// front ends that take keys from outside (an MCP client): they send prompts or answer
// known dialogs.
type PressRequest struct {
	ID     string   `json:"id"`
	PaneID string   `json:"pane_id"`
	Keys   []string `json:"keys"` // tmux key names, from a pack
	Kind   string   `json:"kind"` // nudge, interrupt: audited as the trigger's kind
	Reason string   `json:"reason,omitempty"`
	// Gap, when set, presses the keys one at a time this far apart: a CLI reads keys that
	// arrive together as one burst (two Ctrl-C in one send-keys did not quit Qwen Code;
	// 300 ms apart did, measured in the agents lab).
	Gap time.Duration `json:"gap,omitempty"`
}

// Press presses the keys unless the pane is in a mode, its input is off, it is
// synchronized or dead, with the per-pane rate limit of every action, and audits it.
func (e *Engine) Press(ctx context.Context, req PressRequest) wire.Result {
	audit := wire.Trigger{Kind: req.Kind, At: time.Now(), Reason: req.Reason, Choice: strings.Join(req.Keys, " ")}
	res := wire.Result{ID: req.ID, PaneID: req.PaneID}
	done, ok := e.admit(req.PaneID)
	if !ok {
		return e.record(audit, with(res, rateLimited))
	}
	defer done()
	if p, ok := e.Lookup(req.PaneID); ok {
		res.Name, audit.Name = p.Name, p.Name
	}
	if len(req.Keys) == 0 {
		res.Outcome, res.Detail = outcome.SendKeysError, "no keys to press"
		return e.record(audit, res)
	}
	for i, keys := range strokes(req) {
		bad := e.press(ctx, req.PaneID, keys)
		if bad != nil && i > 0 && bad.Outcome == outcome.PaneDead {
			// The first keys made it quit (an interrupt): the rest had nothing to reach.
			res.Outcome, res.Detail, res.Typed = outcome.Delivered, "pressed "+strings.Join(req.Keys[:i], " ")+"; then its process exited", true
			return e.record(audit, res)
		}
		if bad != nil {
			return e.record(audit, with(res, bad))
		}
		if req.Gap > 0 && Sleep(ctx, req.Gap) != nil {
			return e.record(audit, with(res, fail(outcome.SendKeysError, "cancelled between keys")))
		}
	}
	res.Outcome, res.Detail, res.Typed = outcome.Delivered, "pressed "+strings.Join(req.Keys, " "), true
	return e.record(audit, res)
}

// strokes are the keys as they are pressed: all at once, or one by one with a Gap.
func strokes(req PressRequest) [][]string {
	if req.Gap <= 0 {
		return [][]string{req.Keys}
	}
	out := make([][]string, len(req.Keys))
	for i, k := range req.Keys {
		out[i] = []string{k}
	}
	return out
}
