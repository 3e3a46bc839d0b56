package deliver

import (
	"context"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// paneNow is what tmux says of a pane at this moment, and when a person last touched
// its session.
type paneNow struct {
	found, dead, inMode, inputOff, synchronized bool
	command                                     string    // pane_current_command
	lastActivity                                time.Time // the session's or an attached client's
}

const paneFormat = "#{pane_dead}\x1f#{pane_in_mode}\x1f#{pane_input_off}\x1f#{pane_synchronized}\x1f#{session_name}\x1f#{pane_current_command}"

// inspect asks tmux about a pane: list-panes filtered to it (display-message
// does not fail on a missing pane in tmux 3.3a, it falls back to another), and the
// clients. list-panes -a prints a pane once per session showing it (grouped sessions,
// linked windows): a person typing in any of those is at this pane. Only people count:
// a person's keystrokes move client_activity, and control clients (paneherd's own
// observer, whose attach also moves session_activity) are programs.
func inspect(ctx context.Context, s tmux.Server, paneID string) (paneNow, error) {
	panes, err := s.Run(ctx, nil, "list-panes", "-a", "-f", "#{==:#{pane_id},"+paneID+"}", "-F", paneFormat)
	if err != nil {
		return paneNow{}, err
	}
	clients, err := s.Clients(ctx)
	if err != nil {
		return paneNow{}, err
	}
	var p paneNow
	sessions := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(panes), "\n") {
		f := strings.Split(line, "\x1f")
		if len(f) != 6 {
			continue
		}
		p = paneNow{found: true, dead: f[0] == "1", inMode: f[1] == "1", inputOff: f[2] == "1", synchronized: f[3] == "1",
			command: f[5]}
		sessions[f[4]] = true
	}
	for _, c := range clients {
		if sessions[c.Session] && !c.Control && c.Activity.After(p.lastActivity) {
			p.lastActivity = c.Activity
		}
	}
	return p, nil
}

// capture returns the pane's visible screen with its attributes (-e): the input box's
// faint placeholder must be told from typed text.
func capture(ctx context.Context, s tmux.Server, paneID string) (string, error) {
	screens, err := s.Capture(ctx, []string{paneID}, true)
	if err != nil {
		return "", err
	}
	sc, ok := screens[paneID]
	if !ok {
		return "", tmux.ErrNoPane
	}
	return sc, nil
}
