package notify

import (
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// DialogBlip is how long a pane may be out of a dialog and still show the same dialog
// when it comes back: an agent's hook runs between its claim and the dialog on the screen
// (Gemini CLI draws an "Executing Hooks" spinner, read BUSY, between the hook's claim and
// its dialog), and a screen redrawn mid-look reads something else for a moment. A
// person's answer and the agent's next dialog take longer than that.
const DialogBlip = 2 * time.Second

// dialog is a pane's last notified dialog, which its next dialog is compared with.
type dialog struct {
	at     time.Time // when it was notified
	body   string    // its words, as last read
	byHook bool      // those words are an agent hook's
	// left is when the pane last left NEEDS_CONFIRMATION after it; zero while the pane
	// has not, or came back within DialogBlip.
	left time.Time
}

// Transition takes a change of a pane's state (p is its record before): leaving a dialog
// is remembered, since the next dialog is news only once the pane has been out of it for
// real, and the notification the change raises, if any, is offered. Never blocks.
func (n *Notifier) Transition(p wire.Pane, tr wire.Transition) {
	if tr.From == string(state.NeedsConfirmation) && tr.To != tr.From {
		n.mu.Lock()
		if d, ok := n.dialogs[paneKey(p)]; ok {
			d.left = tr.At
			n.dialogs[paneKey(p)] = d
		}
		n.mu.Unlock()
	}
	if x, ok := FromTransition(p, tr); ok {
		n.Offer(x)
	}
}

// admit applies the switches, the dedupe rules and the per-pane rate limit.
func (n *Notifier) admit(x Notification) bool {
	cfg := n.config()
	if cfg.Backend == "off" || !cfg.Enabled[x.Event] {
		return false
	}
	if x.Event == Finished && x.Lasted < cfg.FinishedMin {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	now := x.At
	n.forget(now, cfg)
	if n.repeats(x, cfg) {
		return false
	}
	switch x.Event {
	case Supervisor, Policy:
		// The supervisor's word (a worker given up on, frozen past its nudges) comes once
		// per such event, right after the pane's own deaths and stalls have used its budget.
	case NeedsConfirmation:
		// A dialog blocks its worker until a person answers: the pane's budget never
		// holds one back, but it counts against the pane's other news.
		n.recent.Allow(x.PaneID, now, 0, cfg.PerPaneW)
	default:
		if !n.recent.Allow(x.PaneID, now, cfg.PerPane, cfg.PerPaneW) {
			return false
		}
	}
	n.remember(x)
	return true
}

// repeats reports whether x was notified already, within the dedupe window. Another
// state or other words of a pane are news. A dialog is one the pane is still in: a pane
// that left its dialog for DialogBlip or longer (answered: it went BUSY, READY) and shows
// one again, with the same words or not, has a new question; back within DialogBlip, it
// is the same dialog when the words are the same, or when either reading is a hook's
// (the agent's words for it, where the screen has the dialog's own).
func (n *Notifier) repeats(x Notification, cfg Config) bool {
	if x.Event != NeedsConfirmation {
		last, ok := n.lastSent[dedupeKey(x.PaneID, x.State, x.Body)]
		return ok && x.At.Sub(last) < cfg.Dedupe
	}
	d, ok := n.dialogs[x.PaneID]
	if !ok || x.At.Sub(d.at) >= cfg.Dedupe {
		return false
	}
	if !d.left.IsZero() && x.At.Sub(d.left) >= DialogBlip {
		return false
	}
	if d.body != x.Body && !d.byHook && !x.ByHook {
		return false
	}
	// The same dialog again: it is back, and its newest words are what the next look
	// compares with (the screen's, once a hook's claim has given way to them).
	d.left, d.body, d.byHook = time.Time{}, x.Body, x.ByHook
	n.dialogs[x.PaneID] = d
	return true
}

// remember notes x as notified, for repeats.
func (n *Notifier) remember(x Notification) {
	if x.Event == NeedsConfirmation {
		n.dialogs[x.PaneID] = dialog{at: x.At, body: x.Body, byHook: x.ByHook}
		return
	}
	n.lastSent[dedupeKey(x.PaneID, x.State, x.Body)] = x.At
}

// dedupeKey is what makes two notifications other than dialogs the same one. A
// different question from the same pane is news: the summary, in the body, is part of
// the key.
func dedupeKey(paneID, state, body string) string { return paneID + "|" + state + "|" + body }

// Recall takes the notifications an earlier daemon sent (the store's history, oldest
// first) as if this notifier had sent them, within the dedupe window and the per-pane
// limit: a daemon that is restarted must not repeat what the last one sent moments ago.
// What no backend delivered (every one failed, or it stopped first) reached no one and
// counts for neither. A recalled dialog is one the pane has not left: leaving it now,
// seen by this daemon, makes the next one news.
func (n *Notifier) Recall(past []wire.Notification) {
	cfg := n.config()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range past {
		if p.PaneID == "" || p.Backend == "" {
			continue // a test notification, which nothing deduplicates, or one never delivered
		}
		x := Notification{At: p.At, PaneID: p.PaneID, Event: Event(p.Event), State: p.State, Body: p.Body}
		n.remember(x)
		switch x.Event {
		case Supervisor, Policy:
		case NeedsConfirmation:
			n.recent.Allow(p.PaneID, p.At, 0, cfg.PerPaneW)
		default:
			n.recent.Allow(p.PaneID, p.At, cfg.PerPane, cfg.PerPaneW)
		}
	}
}

// forget drops what no window needs any more: panes come and go for the daemon's whole
// life, and each leaves a key per state and summary it notified. A sweep once per window
// keeps at most two windows' worth, at a cost per notification that stays constant on
// average (the rate limit's Window forgets the same way by itself).
func (n *Notifier) forget(now time.Time, cfg Config) {
	if now.Before(n.forgetAt) {
		return
	}
	for key, last := range n.lastSent {
		if now.Sub(last) >= cfg.Dedupe {
			delete(n.lastSent, key)
		}
	}
	for pane, d := range n.dialogs {
		if now.Sub(d.at) >= cfg.Dedupe {
			delete(n.dialogs, pane)
		}
	}
	n.forgetAt = now.Add(cfg.Dedupe)
}
