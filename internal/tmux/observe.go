package tmux

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Observe lists every pane and captures the visible screens of ids, all in one tmux
// invocation: starting a tmux client is the cost of a tick (DESIGN.md §4), so the list
// and the captures share one. ids are usually the panes of the previous look; a pane among
// them that has vanished is left out, and panes new in the list are the caller's to
// capture.
func (s Server) Observe(ctx context.Context, ids []string) ([]Pane, map[string]string, error) {
	for _, id := range ids {
		if !isPaneID(id) {
			return nil, nil, fmt.Errorf("tmux: observe: %q is not a pane id", id)
		}
	}
	sep, nonce := "\x1f"+newNonce()+"\x1f", newNonce()
	marker := "paneherd-list-" + nonce
	args := []string{"list-panes", "-a", "-F", paneFormat(sep), ";", "display-message", "-p", marker}
	if len(ids) > 0 {
		args = append(append(args, ";"), captureArgs(ids, false, nonce)...)
	}
	out, runErr := s.Run(ctx, nil, args...)
	listed, rest, ok := strings.Cut(out, marker+"\n")
	if !ok {
		if runErr == nil {
			runErr = errors.New("list-panes output has no end marker")
		}
		return nil, nil, fmt.Errorf("tmux: observe: %w", runErr)
	}
	panes, err := parsePanes(listed, sep)
	if err != nil {
		return nil, nil, err
	}
	screens := make(map[string]string, len(ids))
	done := splitCaptures(rest, nonce, ids, screens)
	if runErr == nil {
		return panes, screens, nil
	}
	if !errors.Is(runErr, ErrNoPane) || done == len(ids) {
		return nil, nil, fmt.Errorf("tmux: observe: %w", runErr)
	}
	// A pane vanished between two looks and aborted the chain at its capture: the rest
	// still need theirs.
	more, err := s.Capture(ctx, ids[done+1:], false)
	if err != nil {
		return nil, nil, err
	}
	for id, sc := range more {
		screens[id] = sc
	}
	return panes, screens, nil
}
