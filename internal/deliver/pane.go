package deliver

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// paneNow is what tmux says of a pane at this moment, and when a person last touched
// its session.
type paneNow struct {
	found, dead, inMode, inputOff, synchronized bool
	lastActivity                                time.Time // the session's or an attached client's
}

const paneFormat = "#{pane_dead}\x1f#{pane_in_mode}\x1f#{pane_input_off}\x1f#{pane_synchronized}\x1f#{session_name}\x1f#{session_activity}"

// inspect asks tmux about a pane in one call: list-panes filtered to it (display-message
// does not fail on a missing pane in tmux 3.3a, it falls back to another), and the
// clients' activity. A person's keystrokes move client_activity and session_activity;
// keys sent by paneherd do not.
func inspect(ctx context.Context, s tmux.Server, paneID string) (paneNow, error) {
	out, err := s.Run(ctx, nil, tmux.Chain([][]string{
		{"list-panes", "-a", "-f", "#{==:#{pane_id}," + paneID + "}", "-F", paneFormat},
		{"display-message", "-p", "paneherd-clients"},
		{"list-clients", "-F", "#{client_session}\x1f#{client_activity}\x1f#{client_control_mode}"},
	})...)
	if err != nil {
		return paneNow{}, err
	}
	pane, clients, _ := strings.Cut(out, "paneherd-clients\n")
	f := strings.Split(strings.TrimSpace(pane), "\x1f")
	if len(f) != 6 {
		return paneNow{}, nil
	}
	p := paneNow{found: true, dead: f[0] == "1", inMode: f[1] == "1", inputOff: f[2] == "1", synchronized: f[3] == "1"}
	p.lastActivity = unix(f[5])
	for _, line := range strings.Split(strings.TrimSpace(clients), "\n") {
		// Control clients (paneherd's own observer, an editor) are programs, not people.
		c := strings.Split(line, "\x1f")
		if len(c) == 3 && c[0] == f[4] && c[2] != "1" && unix(c[1]).After(p.lastActivity) {
			p.lastActivity = unix(c[1])
		}
	}
	return p, nil
}

func unix(s string) time.Time {
	n, _ := strconv.ParseInt(s, 10, 64)
	return time.Unix(n, 0)
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
