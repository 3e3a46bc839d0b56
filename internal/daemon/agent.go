package daemon

import (
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/hooks"
)

// Lines that a flood of hook events repeats: each is written once per interval, with
// the count of the rest (logfile.Log.Repeated).
const (
	hookNotUnderstood = "agent hook not understood"
	hookNotApplied    = "agent hook not applied"
)

// agent takes an agent hook's event: the watcher applies it and publishes at once, and
// the observer looks soon, so the screen confirms or contradicts it. A hook that could
// not be read (its Problem) is a line in the log: the agent was not disturbed, and the
// screen still tells the pane's state.
func (d *Daemon) agent(a hooks.AgentEvent) {
	if a.Problem != "" {
		d.log.Repeated(zerolog.WarnLevel, hookNotUnderstood, problemKind(a.Problem)).Str("agent", a.Agent).
			Str("event", a.Event).Str("pane", a.Pane).Str("problem", a.Problem).Msg(hookNotUnderstood)
		return
	}
	d.followContext(a)
	known, err := d.w.Agent(a, time.Now())
	switch {
	case err != nil:
		d.log.Repeated(zerolog.ErrorLevel, hookNotApplied, "").Err(err).Str("agent", a.Agent).Str("event", a.Event).
			Str("pane", a.Pane).Msg(hookNotApplied)
	case !known:
		d.log.Debug().Str("agent", a.Agent).Str("event", a.Event).Str("pane", a.Pane).Msg("agent hook for a pane not seen yet; looking")
	default:
		d.log.Debug().Str("agent", a.Agent).Str("event", a.Event).Str("pane", a.Pane).Str("kind", a.Kind).Msg("agent hook")
	}
}

// problemKind is what went wrong with a hook, without the details that vary from one
// payload to the next (its size, its first bytes, the agent's name): the words before them.
func problemKind(problem string) string {
	if i := strings.IndexAny(problem, `("`); i >= 0 {
		problem = problem[:i]
	}
	kind, _, _ := strings.Cut(problem, ":")
	return strings.TrimSpace(kind)
}
