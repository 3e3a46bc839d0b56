// Package notify tells a person when a worker needs them, without spam: desktop
// notifications through beeep when a desktop session bus is known to exist (through
// osascript on macOS), otherwise a message on the attached tmux clients, and besides
// through every extra backend the options turn on (the clients' terminals, a command, a
// webhook, a sound). Only edges notify (a dialog appears, a turn finishes, an error, a
// stall, a death), a dialog once while it waits and other news once per dedupe window,
// never for the pane a person is looking at, and a burst becomes one summary.
package notify

import (
	"fmt"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
)

// Event names what happened; each can be switched off with @paneherd-notify-<event>.
type Event string

const (
	NeedsConfirmation Event = "needs-confirmation" // a pane enters NEEDS_CONFIRMATION
	Finished          Event = "finished"           // BUSY -> READY: its work is done
	Failed            Event = "error"              // a pane enters ERROR
	Stalled           Event = "stalled"            // a pane enters STALLED
	Exited            Event = "exited"             // a pane died or its agent exited
	// Supervisor: a managed worker crashed too often, stayed frozen after its nudges, or
	// stopped getting health prompts (critical).
	Supervisor Event = "supervisor"
	// Policy: the policy approved or denied a dialog.
	Policy Event = "policy"
	// ContextFull: a pane's context passed @paneherd-notify-context (a percent of its
	// model's window).
	ContextFull Event = "context"
	Test        Event = "test" // `paneherd notify test`
)

// Events are the events a transition can raise, in the order docs/notifications.md lists them.
var Events = []Event{NeedsConfirmation, Finished, Failed, Stalled, Exited, Supervisor, Policy}

// Notification is one message for a person.
type Notification struct {
	At       time.Time
	PaneID   string
	Name     string
	Target   string // session:window.pane
	Event    Event
	State    string
	Title    string
	Body     string
	Critical bool          // NEEDS_CONFIRMATION and ERROR: the person is blocking the work
	Lasted   time.Duration // how long the pane was in the state it left
	// Explained: the body holds a language model's words on the screen (Explainer).
	Explained bool
	// From is the state the pane left; "" when none is known (a summary, a test).
	From string
	// Summary is the screen's one line on what is asked or what failed (the pack's, or the
	// model's when Explained), which the body holds too; "" when there is none.
	Summary string
	// ByHook: the state is an agent hook's claim, worded by the agent, not read from the
	// screen: the same dialog read from the screen a moment later has other words.
	ByHook bool
}

// FromTransition returns the notification a transition raises, if any. p is the pane's
// record before the transition (its Since is when the old state began).
func FromTransition(p wire.Pane, tr wire.Transition) (Notification, bool) {
	if p.Since.IsZero() {
		// The first look at a pane (a new pane, a daemon starting) sees a state, not a
		// change: three agents already waiting when tmux starts are not three events.
		return Notification{}, false
	}
	ev, ok := eventOf(state.State(tr.From), state.State(tr.To), tr.Rule)
	if !ok || (ev == Finished && p.Rule == tracker.RuleStarting) {
		// An agent that started and waits for its first task finished none.
		return Notification{}, false
	}
	n := Notification{At: tr.At, PaneID: paneKey(p), Name: onHost(p, p.Name), Event: ev, State: tr.To, From: tr.From,
		Summary: tr.Summary, ByHook: tracker.ByHook(tr.Rule), Target: target(p)}
	n.Critical = ev == NeedsConfirmation || ev == Failed
	n.Lasted = tr.At.Sub(p.Since)
	n.Title, n.Body = text(n, tr.Summary, n.Lasted)
	return n, true
}

// paneKey is the pane as notifications know it, dedupe and the history included: its id,
// after its host's name for another machine's ("devbox/%3"), whose ids are that server's.
func paneKey(p wire.Pane) string { return onHost(p, p.ID) }

// onHost is what names a pane, after its host's name and a "/" for another machine's:
// a notification of "devbox/api" says where to look.
func onHost(p wire.Pane, s string) string {
	if p.Host == "" {
		return s
	}
	return p.Host + "/" + s
}

// target is where the pane is: session:window.pane, after "host:" for another
// machine's.
func target(p wire.Pane) string {
	t := fmt.Sprintf("%s:%d.%d", p.Session, p.WindowIndex, p.PaneIndex)
	if p.Host != "" {
		return p.Host + ":" + t
	}
	return t
}

// FromAgentExit is the notification for an agent's CLI ending in pane p, its shell back.
// The screen's summary (the shell prompt's pack reads it) tells what it left behind. ok is
// false when p already reads EXITED: the agent's exit screen was read, and told, before
// its process ended.
func FromAgentExit(p wire.Pane, agent string, at time.Time) (n Notification, ok bool) {
	if p.State == string(state.Exited) {
		return Notification{}, false
	}
	n = Notification{At: at, PaneID: p.ID, Name: p.Name, Event: Exited, State: "EXITED", From: p.State,
		Target: fmt.Sprintf("%s:%d.%d", p.Session, p.WindowIndex, p.PaneIndex)}
	n.Title = fmt.Sprintf("%s: %s exited", p.Name, agent)
	n.Body = "its shell is back\nin " + n.Target
	if p.State == string(state.Error) && p.Summary != "" {
		n.Summary = p.Summary
		n.Body = p.Summary + "\nin " + n.Target
	}
	return n, true
}

// FromPolicy is the word on a dialog the policy answered: "approved by rule NAME: …" or
// "denied by rule NAME: …", never an alert (nobody need act). The pane's budget never
// holds it back, as a supervisor's.
func FromPolicy(p wire.Pane, action, rule, summary string, at time.Time) Notification {
	n := Notification{At: at, PaneID: paneKey(p), Name: onHost(p, p.Name), Event: Policy, State: p.State,
		Summary: summary, Target: target(p)}
	verb := "approved"
	if action == "deny" {
		verb = "denied"
	}
	n.Title = fmt.Sprintf("%s: %s by rule %s", n.Name, verb, rule)
	n.Body = fmt.Sprintf("%s by rule %s: %s\nin %s", verb, rule, summary, n.Target)
	return n
}

// eventOf maps an edge to an event. A pane closed by a person (kill-pane) is not news;
// a pane whose process died is, and so is an agent showing its own exit.
func eventOf(from, to state.State, rule string) (Event, bool) {
	switch {
	case to == state.NeedsConfirmation:
		return NeedsConfirmation, true
	case from == state.Busy && to == state.Ready:
		return Finished, true
	case to == state.Error:
		return Failed, true
	case to == state.Stalled:
		return Stalled, true
	case to == state.Exited, to == state.Offline && rule == tracker.RuleDead:
		return Exited, true
	}
	return "", false
}

// text words a notification: the title names the worker and what happened, the body says
// what is asked or what failed, and where.
func text(n Notification, summary string, lasted time.Duration) (string, string) {
	var title string
	switch n.Event {
	case NeedsConfirmation:
		title = n.Name + " needs your confirmation"
	case Finished:
		title = fmt.Sprintf("%s finished (ran %s)", n.Name, roundDuration(lasted))
	case Failed:
		title = n.Name + " failed"
	case Stalled:
		title = fmt.Sprintf("%s is stalled (busy for %s, screen frozen)", n.Name, roundDuration(lasted))
	case Exited:
		title = n.Name + " exited"
	}
	var body []string
	if summary != "" {
		body = append(body, summary)
	}
	body = append(body, "in "+n.Target)
	return title, strings.Join(body, "\n")
}

func roundDuration(d time.Duration) string {
	if d < time.Hour {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

// TestNotification is what `paneherd notify test` sends.
func TestNotification() Notification {
	return Notification{At: time.Now(), Event: Test, Title: "paneherd test notification",
		Body: "If you can read this, paneherd can reach you."}
}
