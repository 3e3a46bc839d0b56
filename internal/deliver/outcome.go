package deliver

// Outcome is how an action on a pane ended; each has its own exit code (cmd/paneherd).
type Outcome string

const (
	Delivered          Outcome = "DELIVERED"            // the prompt was taken: the pane went BUSY or its input box changed
	Queued             Outcome = "QUEUED"               // --queue: kept until the pane is READY
	TargetNotFound     Outcome = "TARGET_NOT_FOUND"     // no such pane
	PaneDead           Outcome = "PANE_DEAD"            // its process has exited
	SendKeysError      Outcome = "SEND_KEYS_ERROR"      // tmux refused, or keys cannot go safely (input off, synchronized panes)
	AckTimeout         Outcome = "ACK_TIMEOUT"          // sent, retried, never acknowledged
	OperatorBusy       Outcome = "OPERATOR_BUSY"        // a person is there: copy mode, a draft in the input box
	DeferTimeout       Outcome = "DEFER_TIMEOUT"        // a person kept typing in the session
	TriggerRateLimited Outcome = "TRIGGER_RATE_LIMITED" // too many actions on this pane lately
	NotReady           Outcome = "NOT_READY"            // the pane is busy or waiting; use --queue
	Answered           Outcome = "ANSWERED"             // approve/deny: keys sent and the dialog went away
	NotADialog         Outcome = "NOT_A_DIALOG"         // approve/deny: the screen shows no dialog paneherd may answer
	DialogStillShown   Outcome = "DIALOG_STILL_SHOWN"   // approve/deny: keys sent, the dialog stayed
)

// Result is what happened to one action.
type Result struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	PaneID  string  `json:"pane_id"`
	Name    string  `json:"name,omitempty"`
	Detail  string  `json:"detail,omitempty"`
	Retries int     `json:"retries"`
}
