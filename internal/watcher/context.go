package watcher

import (
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/store"
)

// SetContext gives a pane the context its agent's transcript or session file told
// (contextuse.Readers), and publishes it when it changed. It reports false for a pane the
// watcher does not have (gone: its reader can stop).
func (w *Watcher) SetContext(paneID string, c wire.Context, at time.Time) (bool, error) {
	return w.change(paneID, at, func(p *pane, batch *store.Batch) {
		before := p.rec
		p.told = c
		p.rec.Context = p.context()
		if p.rec != before {
			w.stale = true
			put(batch, p.rec)
			w.contextMoved(before, p.rec)
		}
	})
}

// context is what the pane's agent tells of its context now: its file's word (the
// tokens, the sums), else the figure its screen shows, else nothing. A file that gives no
// percent (its model's window not known) takes the screen's, when it shows one.
func (p *pane) context() wire.Context {
	sc := p.read.context
	if c := p.told; c.Known() {
		if c.UsedPct.IsZero() && sc.Shown {
			c.UsedPct = wire.PercentOf(sc.UsedPct)
		}
		return c
	}
	if sc.Shown {
		return wire.Context{Source: wire.ContextScreen, UsedPct: wire.PercentOf(sc.UsedPct)}
	}
	return wire.Context{}
}

// forgetTold drops what a file told of a pane whose agent is no longer the one that wrote
// it: another pack reads the pane (its agent exited to the shell) or its process is a new
// one (respawned). A pack not chosen yet (a pane restored, not looked at yet) proves
// nothing.
func (p *pane) forgetTold(before wire.Pane, info tmux.Pane) {
	if !p.told.Known() || p.pack == nil {
		return
	}
	if p.pack.Name != before.Pack || (before.PID != 0 && info.PID != before.PID) {
		p.told = wire.Context{}
	}
}

// contextMoved tells ContextMoved of a change of the pane's context. Under w.mu.
func (w *Watcher) contextMoved(before, after wire.Pane) {
	if w.ContextMoved != nil && before.Context != after.Context {
		w.ContextMoved(before, after)
	}
}
