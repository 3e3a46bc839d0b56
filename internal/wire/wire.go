// Package wire is what crosses a process boundary: the query socket's operations, its
// requests, answers and errors, and the records and files the daemon publishes (the
// snapshot, the workers registry) in the shape front ends, scripts and orchestrators read.
// It holds data, the methods that read nothing but the data, and the readers and writers
// of the two published files; the packages that produce and consume it convert their own
// types to and from it. Every JSON field name and omitempty here is read by scripts and
// other paneherd versions: change none.
package wire

import "encoding/json"

// The questions the daemon answers (Request.Op).
const (
	OpHistory    = "history"     // Request.PaneID, Limit (Body: WorkerAsk for a worker by name) -> History
	OpSend       = "send"        // Body: SendAsk -> Result
	OpAnswer     = "answer"      // Body: AnswerRequest -> Result
	OpNotifyTest = "notify-test" // -> NotifyTestResult
	OpCreate     = "create"      // Body: CreateAsk -> Worker
	OpRetire     = "retire"      // Body: WorkerAsk -> Worker (as it was)
	OpContinue   = "continue"    // Body: WorkerAsk -> Worker
	OpMetrics    = "metrics"     // -> Metrics
	OpAbout      = "about"       // -> About
	// OpSnapshot: Body SnapshotAsk -> Published: the snapshot once it is not the one the
	// asker has, else after SnapshotAsk.Wait with none (`paneherd follow`'s long poll).
	OpSnapshot = "snapshot"
)

// Ops is every operation the daemon answers: its table of handlers has one for each.
var Ops = []string{OpHistory, OpSend, OpAnswer, OpNotifyTest, OpCreate, OpRetire, OpContinue, OpMetrics, OpAbout, OpSnapshot}

// Request asks the daemon something.
type Request struct {
	Op     string          `json:"op"`
	PaneID string          `json:"pane_id,omitempty"`
	Limit  int             `json:"limit,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"` // what the op needs beyond these
}

// Answer is the daemon's reply: Error (with its Code), or a JSON body whose shape depends
// on Op.
type Answer struct {
	Error string `json:"error,omitempty"`
	// Code says what kind of error it is (Error.Code), so the asker can tell without
	// reading words; an older daemon's error has none.
	Code string          `json:"code,omitempty"`
	Body json.RawMessage `json:"body,omitempty"`
}
