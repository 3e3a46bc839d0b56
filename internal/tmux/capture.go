package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Capture returns the visible screen of each pane (no scrollback), keyed by
// pane id, exactly as `capture-pane -p` prints it: one line per screen row,
// each ending in "\n". With escapes, colours and attributes are kept (-e).
//
// All panes are captured by one tmux invocation. A pane that no longer
// exists is left out of the result rather than failing the call.
func (s Server) Capture(ctx context.Context, ids []string, escapes bool) (map[string]string, error) {
	for _, id := range ids {
		if !isPaneID(id) {
			return nil, fmt.Errorf("tmux capture-pane: %q is not a pane id", id)
		}
	}
	screens := make(map[string]string, len(ids))
	for len(ids) > 0 {
		batch := ids[:fitting(len(ids), maxCommandBytes)]
		done, err := s.captureChain(ctx, batch, escapes, screens)
		if err == nil {
			ids = ids[len(batch):]
			continue
		}
		// A failing command aborts the rest of its chain (measured on 3.3a:
		// "can't find pane: %N", exit 1). Everything before the vanished
		// pane is in screens already; go on with the panes after it.
		if !errors.Is(err, ErrNoPane) || done == len(ids) {
			return nil, err
		}
		ids = ids[done+1:]
	}
	return screens, nil
}

// maxCommandBytes keeps one invocation's arguments under tmux's limit: a client hands its
// whole command line to the server in one message, and tmux 3.3a answers "command too
// long" past about 16 KB (measured: 190 chained captures fit, 220 do not).
const maxCommandBytes = 12 << 10

// perCaptureBytes bounds what one pane adds to a chained capture: capture-pane -p -e -t
// %NNNNN ; display-message -p paneherd-capture-<nonce>-NNNNN ;
const perCaptureBytes = 80

// fitting is how many of n captures fit in budget bytes, at least one.
func fitting(n, budget int) int {
	return max(1, min(n, budget/perCaptureBytes))
}

// captureChain captures ids in one invocation into screens and returns how
// many of them, from the front, were captured.
func (s Server) captureChain(ctx context.Context, ids []string, escapes bool, screens map[string]string) (int, error) {
	nonce := newNonce()
	out, err := s.Run(ctx, nil, captureArgs(ids, escapes, nonce)...)
	return splitCaptures(out, nonce, ids, screens), err
}

// captureArgs chains, per pane, capture-pane and then a marker line that
// proves the capture before it completed.
//
// The marker comes after the capture, not before, because display-message
// does not fail on a missing target in tmux 3.3a (it falls back to the
// current pane): only capture-pane reports the vanished pane, so a marker
// is printed exactly when its pane's capture succeeded. The marker holds
// no '%' since display-message passes its text through strftime.
func captureArgs(ids []string, escapes bool, nonce string) []string {
	args := make([]string, 0, 10*len(ids))
	for i, id := range ids {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, "capture-pane", "-p")
		if escapes {
			args = append(args, "-e")
		}
		args = append(args, "-t", id, ";", "display-message", "-p", captureMarker(nonce, i))
	}
	return args
}

func captureMarker(nonce string, i int) string {
	return "paneherd-capture-" + nonce + "-" + strconv.Itoa(i)
}

// splitCaptures cuts out at the markers; what precedes marker i is the
// screen of ids[i]. Output after the last marker belongs to a failed
// command and is dropped.
func splitCaptures(out, nonce string, ids []string, screens map[string]string) int {
	for i, id := range ids {
		marker := captureMarker(nonce, i) + "\n"
		end := strings.Index(out, marker)
		if end < 0 {
			return i
		}
		screens[id] = out[:end]
		out = out[end+len(marker):]
	}
	return len(ids)
}

// isPaneID accepts only "%N": ids are spliced into a command chain, where a
// word ending in ";" would end the command early and start another.
func isPaneID(id string) bool {
	if len(id) < 2 || id[0] != '%' {
		return false
	}
	_, err := strconv.ParseUint(id[1:], 10, 32)
	return err == nil
}
