package daemon

import (
	"time"

	"github.com/paneherd/paneherd/hooks"
)

// agent takes an agent hook's event: the watcher applies it and publishes at once, and
// the observer looks soon, so the screen confirms or contradicts it. A hook that could
// not be read (its Problem) is one line in the log: the agent was not disturbed, and the
// screen still tells the pane's state.
func (d *Daemon) agent(a hooks.AgentEvent) {
	if a.Problem != "" {
		d.log.Warn().Str("agent", a.Agent).Str("event", a.Event).Str("pane", a.Pane).
			Msg("agent hook not understood: " + a.Problem)
		return
	}
	known, err := d.w.Agent(a, time.Now())
	switch {
	case err != nil:
		d.log.Error().Err(err).Str("agent", a.Agent).Str("event", a.Event).Str("pane", a.Pane).Msg("agent hook")
	case !known:
		d.log.Debug().Str("agent", a.Agent).Str("event", a.Event).Str("pane", a.Pane).Msg("agent hook for a pane not seen yet; looking")
	default:
		d.log.Debug().Str("agent", a.Agent).Str("event", a.Event).Str("pane", a.Pane).Str("kind", a.Kind).Msg("agent hook")
	}
}
