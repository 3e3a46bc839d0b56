package notify

import (
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// Context moves a pane's record from before to after when its context changed: a pane
// whose context passes Config.ContextMark is told of once, and again only after its
// context was seen below the mark (a compaction, a new conversation). A context not known
// (a footer hidden by a dialog) neither passes nor falls. Never blocks.
func (n *Notifier) Context(before, after wire.Pane) {
	mark := n.config().ContextMark
	pct, known := after.Context.UsedPct.Get()
	if mark <= 0 || !known {
		return
	}
	key := paneKey(after)
	n.mu.Lock()
	if n.contextWarned == nil {
		n.contextWarned = map[string]bool{}
	}
	warned := n.contextWarned[key]
	if pct < mark {
		delete(n.contextWarned, key)
	} else {
		n.contextWarned[key] = true
	}
	n.mu.Unlock()
	if pct >= mark && !warned {
		n.Offer(FromContext(after, mark, n.Now()))
	}
}

// FromContext is the word on a pane whose context passed the mark: "api: context 87%
// used", how many tokens of how many when told, and where.
func FromContext(p wire.Pane, mark int, at time.Time) Notification {
	pct, _ := p.Context.UsedPct.Get()
	n := Notification{At: at, PaneID: paneKey(p), Name: onHost(p, p.Name), Event: ContextFull, State: p.State,
		From: p.State, Target: target(p)}
	n.Summary = fmt.Sprintf("context %d%% used", pct)
	n.Title = n.Name + ": " + n.Summary
	detail := fmt.Sprintf("past the %d%% mark", mark)
	if c := p.Context; c.Tokens > 0 && c.Window > 0 {
		detail += fmt.Sprintf(": %d of %d tokens", c.Tokens, c.Window)
	}
	n.Body = detail + "\nin " + n.Target
	return n
}
