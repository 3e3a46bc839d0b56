package notify

import (
	"context"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// Client is an attached tmux client.
type Client = tmux.Client

// Clients lists the attached clients.
func Clients(ctx context.Context, s tmux.Server) ([]Client, error) { return s.Clients(ctx) }

// presentFor is how recent a keystroke must be to count as a person at a client whose
// focus tmux cannot know.
const presentFor = time.Minute

// Watched reports the panes a person is looking at: shown by a focused client. Without
// focus-events (tmux's default) tmux calls every client focused, so there a client also
// needs a keystroke in the last minute: a terminal left in the background still gets told.
func Watched(clients []Client, now time.Time) map[string]bool {
	w := map[string]bool{}
	for _, c := range clients {
		if c.Control || !c.Focused {
			continue
		}
		if c.FocusKnown || now.Sub(c.Activity) < presentFor {
			w[c.PaneID] = true
		}
	}
	return w
}
