package notify

import (
	"context"
	"strings"

	"github.com/paneherd/paneherd/internal/tmux"
)

// Client is an attached tmux client.
type Client struct {
	Name    string
	TTY     string
	Session string
	PaneID  string // the pane it shows
	Focused bool   // tmux thinks the terminal has focus (always, without focus-events)
	Control bool   // a control-mode client (paneherd's own observer, an IDE): no person
}

// Clients lists the attached clients in one call.
func Clients(ctx context.Context, s tmux.Server) ([]Client, error) {
	const sep = "\x1f"
	out, err := s.Run(ctx, nil, "list-clients", "-F",
		strings.Join([]string{"#{client_name}", "#{client_tty}", "#{session_name}", "#{pane_id}", "#{client_flags}"}, sep))
	if err != nil {
		return nil, err
	}
	var cs []Client
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, sep)
		if len(f) != 5 {
			continue
		}
		flags := "," + f[4] + ","
		cs = append(cs, Client{Name: f[0], TTY: f[1], Session: f[2], PaneID: f[3],
			Focused: strings.Contains(flags, ",focused,"), Control: strings.Contains(flags, ",control-mode,")})
	}
	return cs, nil
}

// Watched reports the panes a person is looking at: shown by a focused client.
func Watched(clients []Client) map[string]bool {
	w := map[string]bool{}
	for _, c := range clients {
		if c.Focused && !c.Control {
			w[c.PaneID] = true
		}
	}
	return w
}
