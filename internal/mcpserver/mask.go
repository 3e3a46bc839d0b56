package mcpserver

import (
	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/wire"
)

// Everything the server hands a client that came from a screen (a pack's summary is a
// line of it; a runtime event keeps a frozen screen's last lines; a refusal quotes a
// draft) is masked the way read_screen's text is: a secret on a worker's screen must not
// reach the model by another road.

func maskPanes(panes []wire.PaneStatus) []wire.PaneStatus {
	for i := range panes {
		panes[i].Summary = secrets.Mask(panes[i].Summary)
		if w := panes[i].Worker; w != nil {
			w.Why = secrets.Mask(w.Why)
		}
	}
	return panes
}

func maskWait(r wire.WaitResult) wire.WaitResult {
	r.Summary = secrets.Mask(r.Summary)
	return r
}

func maskResult(r wire.Result) wire.Result {
	r.Detail = secrets.Mask(r.Detail)
	return r
}

func maskHistory(h wire.History) wire.History {
	for i := range h.Transitions {
		h.Transitions[i].Summary = secrets.Mask(h.Transitions[i].Summary)
	}
	for i := range h.Notifications {
		n := &h.Notifications[i]
		n.Title, n.Body = secrets.Mask(n.Title), secrets.Mask(n.Body)
	}
	for i := range h.Triggers {
		h.Triggers[i].Detail = secrets.Mask(h.Triggers[i].Detail)
	}
	for i := range h.Events {
		e := &h.Events[i]
		e.Detail = secrets.Mask(e.Detail)
		for j := range e.Lines {
			e.Lines[j] = secrets.Mask(e.Lines[j])
		}
	}
	return h
}

func maskCreated(c wire.Created) wire.Created {
	c.Started = maskWait(c.Started)
	if c.Prompt != nil {
		p := maskResult(*c.Prompt)
		c.Prompt = &p
	}
	return c
}
