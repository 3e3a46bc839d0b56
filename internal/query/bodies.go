package query

import (
	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/store"
)

// SendAsk is the body of OpSend.
type SendAsk struct {
	deliver.SendRequest
	Queue bool `json:"queue,omitempty"` // not READY: keep it until the pane is
}

// History is the answer to OpHistory: the pane's transitions, notifications and actions
// (sends, approvals, denials), each oldest first.
type History struct {
	Transitions   []store.Transition   `json:"transitions"`
	Notifications []store.Notification `json:"notifications"`
	Triggers      []store.Trigger      `json:"triggers"`
}

// Metrics is the answer to OpMetrics: the daemon's metrics in the Prometheus text
// exposition format.
type Metrics struct {
	Text string `json:"text"`
}

// NotifyTestResult is the answer to OpNotifyTest.
type NotifyTestResult struct {
	Backend string `json:"backend"`
	Error   string `json:"error,omitempty"`
}

// NotifyTested is the result of a test notification delivered by backend ("": none),
// or not for err.
func NotifyTested(backend string, err error) NotifyTestResult {
	r := NotifyTestResult{Backend: backend}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}
