package daemon

import (
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/contextuse"
	"github.com/paneherd/paneherd/internal/wire"
)

// newContexts builds the readers of the agents' transcripts and session files: a pack's
// window table for the models, and the watcher told of each change.
func (d *Daemon) newContexts() *contextuse.Readers {
	return &contextuse.Readers{
		Window: func(agent, model string) int64 {
			p, err := d.w.Packs.Get(agent) // the builtin packs are named as the agents
			if err != nil {
				return 0
			}
			return p.Window(model)
		},
		Changed: func(paneID string, c wire.Context) bool {
			known, err := d.w.SetContext(paneID, c, time.Now())
			if err != nil {
				d.log.Warn().Err(err).Str("pane", paneID).Msg("context: not stored")
			}
			return known
		},
		Hint: func(paneID string) string {
			rec, _, _ := d.w.Pane(paneID)
			return namedModel(rec.Context)
		},
		Failed: func(paneID, path string, err error) {
			d.log.Warn().Err(err).Str("pane", paneID).Str("file", path).Msg("context: agent's file not read")
		},
	}
}

// namedModel is the model a pane's stored context was worked out with, when a hook named
// it: its file gave a window (a Claude transcript's own model does not say it; the
// percent may be the screen's).
func namedModel(c wire.Context) string {
	if c.Window <= 0 || c.Source == wire.ContextScreen {
		return ""
	}
	return c.Model
}

// followContext looks at the pane's file now (the hook says the agent wrote to it); a
// session that ended is read no more.
func (d *Daemon) followContext(a hooks.AgentEvent) {
	if a.Event == "SessionEnd" {
		d.contexts.Forget(a.Pane)
		return
	}
	d.contexts.Poke()
}

// followFile has the pane's context read from the file the agent's hook named, with the
// model it named.
func (d *Daemon) followFile(a hooks.AgentEvent) {
	if err := d.contexts.Follow(a.Pane, a.Agent, a.Transcript, a.Model); err != nil {
		d.log.Debug().Err(err).Str("pane", a.Pane).Msg("context: not read")
	}
}

// contextMoved takes a pane's change of context: the notifier's mark, and a managed
// worker's handoff. Under the watcher's lock: neither blocks.
func (d *Daemon) contextMoved(before, after wire.Pane) {
	d.notifier.Context(before, after)
	d.sup.Poke()
}
