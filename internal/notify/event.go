package notify

import (
	"encoding/json"
	"strconv"
	"time"
)

// EventObject is paneherd's documented event object (docs/notifications.md, "Running a program"): what
// the command backend gives its program as JSON on stdin and, field for field, in
// PANEHERD_* variables, and what the webhook's json format posts. Its texts have been
// through Outbound. Fields are added, never renamed or removed: people's scripts read them.
type EventObject struct {
	Event         Event  `json:"event"`          // needs-confirmation, finished, error, stalled, exited, supervisor, policy, context, test
	State         string `json:"state"`          // the pane's state now (NEEDS_CONFIRMATION, READY, ...)
	PreviousState string `json:"previous_state"` // the state it left; "" when not known
	Name          string `json:"name"`           // the worker's name; "" for a summary of several
	Pane          string `json:"pane"`           // tmux's pane id (%12)
	Target        string `json:"target"`         // session:window.pane
	Summary       string `json:"summary"`        // one line: what is asked or what failed
	Title         string `json:"title"`
	Body          string `json:"body"` // may hold several lines
	Critical      bool   `json:"critical"`
	Host          string `json:"host"` // the machine the daemon runs on
	Time          string `json:"time"` // RFC 3339, with the daemon's UTC offset
}

// NewEventObject is n as the event object, passed through Outbound here so that no
// backend can hand out a field that skipped it.
func NewEventObject(n Notification, host string) EventObject {
	n = Outbound(n)
	return EventObject{Event: n.Event, State: n.State, PreviousState: n.From, Name: n.Name,
		Pane: n.PaneID, Target: n.Target, Summary: n.Summary, Title: n.Title, Body: n.Body,
		Critical: n.Critical, Host: host, Time: n.At.Format(time.RFC3339)}
}

// EventJSON is n's event object encoded as one JSON object.
func EventJSON(n Notification, host string) []byte {
	return NewEventObject(n, host).JSON()
}

// JSON encodes e as one JSON object.
func (e EventObject) JSON() []byte {
	// Strings and a bool have no value encoding/json refuses (invalid UTF-8 becomes U+FFFD).
	b, _ := json.Marshal(e)
	return b
}

// Environ is e as PANEHERD_* variables, in the form exec.Cmd.Env takes.
func (e EventObject) Environ() []string {
	return []string{
		"PANEHERD_EVENT=" + string(e.Event),
		"PANEHERD_STATE=" + e.State,
		"PANEHERD_PREVIOUS_STATE=" + e.PreviousState,
		"PANEHERD_NAME=" + e.Name,
		"PANEHERD_PANE=" + e.Pane,
		"PANEHERD_TARGET=" + e.Target,
		"PANEHERD_SUMMARY=" + e.Summary,
		"PANEHERD_TITLE=" + e.Title,
		"PANEHERD_BODY=" + e.Body,
		"PANEHERD_CRITICAL=" + strconv.FormatBool(e.Critical),
		"PANEHERD_HOST=" + e.Host,
		"PANEHERD_TIME=" + e.Time,
	}
}
