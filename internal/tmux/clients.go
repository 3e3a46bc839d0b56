package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Client is an attached tmux client.
type Client struct {
	Name    string
	TTY     string
	Session string
	PaneID  string // the pane it shows
	Focused bool   // tmux thinks the terminal has focus (always, without focus-events)
	Control bool   // a control-mode client (paneherd's own observer, an IDE): no person
	// FocusKnown: focus-events is on, so Focused means something.
	FocusKnown bool
	Activity   time.Time // the person's last keystroke
	PID        int       // the client process, whose environment is its terminal's
	Term       string    // TERM where the client started (client_termname)
	// TermType is the terminal's own answer to XTVERSION (client_termtype, tmux 3.3 and
	// later: "kitty(0.35.2)", "tmux 3.3a"), "" when it gave none.
	TermType string
}

// Clients lists the attached clients in one call.
func (s Server) Clients(ctx context.Context) ([]Client, error) {
	const sep = "\x1f"
	out, err := s.Run(ctx, nil, "list-clients", "-F",
		strings.Join([]string{"#{client_name}", "#{client_tty}", "#{session_name}", "#{pane_id}", "#{client_flags}",
			"#{focus-events}", "#{client_activity}", "#{client_pid}", "#{client_termname}",
			// Last: the terminal wrote it, and whatever it holds cannot shift the others.
			"#{client_termtype}"}, sep))
	if err != nil {
		return nil, err
	}
	var cs []Client
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, sep)
		if len(f) == 1 && Sanitised(line, sep) {
			return nil, fmt.Errorf("tmux list-clients: %w", ErrSanitised)
		}
		if len(f) < 10 {
			continue
		}
		flags := "," + f[4] + ","
		at, _ := strconv.ParseInt(f[6], 10, 64)
		pid, _ := strconv.Atoi(f[7])
		cs = append(cs, Client{Name: f[0], TTY: f[1], Session: f[2], PaneID: f[3],
			Focused: strings.Contains(flags, ",focused,"), Control: strings.Contains(flags, ",control-mode,"),
			FocusKnown: f[5] == "on", Activity: time.Unix(at, 0), PID: pid, Term: f[8],
			TermType: strings.Join(f[9:], sep)})
	}
	return cs, nil
}
