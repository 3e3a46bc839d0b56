package tmux

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ServerFormat prints a tmux server's identity: pane ids restart at %0 with a new server on
// the same socket; its pid and start time together do not repeat.
const ServerFormat = "#{pid}:#{start_time}"

// Look is one observation of a server.
type Look struct {
	// Server identifies the server process ("pid:start_time"): pane ids restart at %0
	// when a server restarts on the same socket, so a pane id means nothing without it.
	Server  string
	Panes   []Pane
	Screens map[string]string // by pane id
}

// Observe lists every pane and captures the visible screens of ids, all in one tmux
// invocation: starting a tmux client is the cost of a tick (docs/performance.md#what-tmux-costs), so the list
// and the captures share one. ids are usually the panes of the previous look; a pane among
// them that has vanished is left out, and panes new in the list are the caller's to
// capture.
func (s Server) Observe(ctx context.Context, ids []string) (Look, error) {
	for _, id := range ids {
		if !isPaneID(id) {
			return Look{}, fmt.Errorf("tmux: observe: %q is not a pane id", id)
		}
	}
	sep, nonce := "\x1f"+newNonce()+"\x1f", newNonce()
	marker := "paneherd-list-" + nonce + " "
	// What does not fit beside the list (tmux's command length limit) is captured after.
	var rest []string
	if len(ids) > 0 {
		n := fitting(len(ids), maxCommandBytes-1024)
		ids, rest = ids[:n], ids[n:]
	}
	args := []string{"list-panes", "-a", "-F", paneFormat(sep), ";", "display-message", "-p", marker + ServerFormat}
	if len(ids) > 0 {
		args = append(append(args, ";"), captureArgs(ids, false, nonce)...)
	}
	out, runErr := s.Run(ctx, nil, args...)
	if errors.Is(runErr, ErrNoSessions) {
		return Look{Screens: map[string]string{}}, nil
	}
	look, tail, err := parseLook(out, marker, sep)
	if err != nil {
		if runErr != nil {
			err = runErr
		}
		return Look{}, fmt.Errorf("tmux: observe: %w", err)
	}
	look.Screens = make(map[string]string, len(ids))
	done := splitCaptures(tail, nonce, ids, look.Screens)
	if runErr == nil {
		return look, s.captureMore(ctx, rest, look.Screens)
	}
	if !errors.Is(runErr, ErrNoPane) || done == len(ids) {
		return Look{}, fmt.Errorf("tmux: observe: %w", runErr)
	}
	// A pane vanished between two looks and aborted the chain at its capture: the rest
	// still need theirs.
	return look, s.captureMore(ctx, append(ids[done+1:], rest...), look.Screens)
}

// captureMore captures ids into screens with as few invocations as tmux allows.
func (s Server) captureMore(ctx context.Context, ids []string, screens map[string]string) error {
	if len(ids) == 0 {
		return nil
	}
	more, err := s.Capture(ctx, ids, false)
	if err != nil {
		return err
	}
	for id, sc := range more {
		screens[id] = sc
	}
	return nil
}

// parseLook reads the list and the server id off the front of out and returns the rest.
func parseLook(out, marker, sep string) (Look, string, error) {
	listed, rest, ok := strings.Cut(out, marker)
	if !ok {
		return Look{}, "", errors.New("list-panes output has no end marker")
	}
	id, rest, _ := strings.Cut(rest, "\n")
	panes, err := parsePanes(listed, sep)
	if err != nil {
		return Look{}, "", err
	}
	return Look{Server: id, Panes: panes}, rest, nil
}
