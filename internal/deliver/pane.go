package deliver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/wire"

	"github.com/paneherd/paneherd/internal/tmux"
)

// paneNow is what tmux says of a pane at this moment, and when a person last touched
// its session.
type paneNow struct {
	found, dead, inputOff, synchronized bool
	mode                                string    // pane_mode: copy-mode, view-mode, …; "" when in none
	command                             string    // pane_current_command
	pack                                string    // @paneherd-pack: the pack a person named for it
	lastActivity                        time.Time // the session's or an attached client's
}

// paneFormat is what inspect and guard ask tmux about a pane. pane_mode, not
// pane_in_mode: that one counts the modes stacked on the pane (run-shell output over a
// person's copy mode makes it "2").
const paneFormat = "#{pane_dead}\x1f#{pane_mode}\x1f#{pane_input_off}\x1f#{pane_synchronized}\x1f#{session_name}\x1f#{pane_current_command}\x1f#{@paneherd-pack}"

// parsePane reads one line of paneFormat, and the session it names.
func parsePane(line string) (p paneNow, session string, ok bool) {
	f := strings.Split(line, "\x1f")
	if len(f) != 7 {
		return paneNow{}, "", false
	}
	return paneNow{found: true, dead: f[0] == "1", mode: f[1], inputOff: f[2] == "1", synchronized: f[3] == "1",
		command: f[5], pack: f[6]}, f[4], true
}

// inspect asks tmux about a pane and the clients. A pane is listed once per session
// showing it (grouped sessions, linked windows): a person typing in any of those is at
// this pane. Only people count: a person's keystrokes move client_activity, and control
// clients (paneherd's own observer, whose attach also moves session_activity) are
// programs.
func inspect(ctx context.Context, s tmux.Server, paneID string) (paneNow, error) {
	panes, err := listPane(ctx, s, paneID, paneFormat)
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
		if now, session, ok := parsePane(line); ok {
			p = now
			sessions[session] = true
		} else if tmux.Sanitised(line, "\x1f") {
			return paneNow{}, fmt.Errorf("deliver: list-panes: %w", tmux.ErrSanitised)
		}
	}
	for _, c := range clients {
		if sessions[c.Session] && !c.Control && c.Activity.After(p.lastActivity) {
			p.lastActivity = c.Activity
		}
	}
	return p, nil
}

// listPane prints format for the pane, once per session showing it: list-panes -a
// filtered to the pane (display-message does not fail on a missing pane in tmux 3.3a, it
// falls back to another).
func listPane(ctx context.Context, s tmux.Server, paneID, format string) (string, error) {
	return s.Run(ctx, nil, "list-panes", "-a", "-f", "#{==:#{pane_id},"+paneID+"}", "-F", format)
}

// ScreenNow is the pane's screen right now, as the engine reads it before it acts:
// `paneherd policy explain` decides on what an automatic answer would see.
func ScreenNow(ctx context.Context, s tmux.Server, paneID string) (screen.Screen, error) {
	sc, _, err := screenNow(ctx, s, paneID)
	return sc, err
}

// screenNow captures the pane and reads it as the watcher does (internal/watcher, read):
// with the program in front (a shell in front: the line at its prompt is a draft) and the
// cursor's row when the program shows it (the engine prefers that line as the input box,
// packs/present.go). raw is the capture as tmux gave it.
func screenNow(ctx context.Context, s tmux.Server, paneID string) (sc screen.Screen, raw string, err error) {
	raw, err = capture(ctx, s, paneID)
	if err != nil {
		return screen.Screen{}, "", err
	}
	sc = screen.Parse(raw)
	out, _ := listPane(ctx, s, paneID, "#{pane_current_command}\x1f#{cursor_flag}\x1f#{cursor_y}\x1f#{pane_width}")
	first, _, _ := strings.Cut(out, "\n")
	if f := strings.Split(first, "\x1f"); len(f) == 4 {
		sc.Foreground = f[0]
		sc.Width, _ = strconv.Atoi(f[3])
		if y, err := strconv.Atoi(f[2]); err == nil && f[1] == "1" {
			sc.CursorY = y
		}
	}
	return sc, raw, nil
}

// refusal says why nothing may go into a pane in this state, if anything.
func refusal(now paneNow, paneID string) *wire.Result {
	switch {
	case !now.found:
		return fail(outcome.TargetNotFound, "pane %s is gone", paneID)
	case now.dead:
		return fail(outcome.PaneDead, "the pane's process has exited")
	case now.mode != "":
		return fail(outcome.OperatorBusy, "the pane is in %s: someone is reading it", now.mode)
	case now.inputOff:
		return fail(outcome.SendKeysError, "the pane's input is off (select-pane -e turns it on)")
	case now.synchronized:
		return fail(outcome.SendKeysError, "synchronize-panes is on: keys would go to every pane of the window")
	}
	return nil
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
