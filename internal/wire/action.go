package wire

import "github.com/paneherd/paneherd/internal/outcome"

// SendRequest asks for a prompt to be put into a pane and submitted.
type SendRequest struct {
	ID     string `json:"id"`
	PaneID string `json:"pane_id"`
	Text   string `json:"text"`
	Force  bool   `json:"force,omitempty"`  // do not defer to a person typing in the session
	Reason string `json:"reason,omitempty"` // why forced; audited
	// Envelope, if set, wraps the prompt in [TRIGGER id=Envelope]...[/TRIGGER] and makes
	// ACK_TRIGGER:Envelope on the screen an acknowledgement (envelope.go); audited.
	Envelope string `json:"envelope,omitempty"`
	// AgentsOnly refuses a pane its pack reads as a plain shell (packs.Shell), which runs
	// whatever it is typed, when the send's checks look at it: MCP's send_prompt by
	// default (@paneherd-mcp-send), so an agent that exits to its shell between the
	// asking and the sending (or a queued prompt's delivery) is not typed into.
	AgentsOnly bool `json:"agents_only,omitempty"`
}

// AnswerRequest asks for a dialog to be answered.
type AnswerRequest struct {
	ID     string `json:"id"`
	PaneID string `json:"pane_id"`
	Choice string `json:"choice"` // packs.ChoiceApprove, ChoiceAlways, ChoiceDeny
}

// Result is what happened to one action.
type Result struct {
	ID      string          `json:"id"`
	Outcome outcome.Outcome `json:"outcome"`
	PaneID  string          `json:"pane_id"`
	Name    string          `json:"name,omitempty"`
	Detail  string          `json:"detail,omitempty"`
	Retries int             `json:"retries"`
	// Typed: a send got as far as pasting, so the prompt may be in the pane even if it
	// failed after; one that was not typed can be sent again without sending it twice.
	// (Answers leave it false.)
	Typed bool `json:"typed"`
	// AuditError says why the action, done as Outcome says, is missing from the audit
	// (the store failed); "" when it was recorded.
	AuditError string `json:"audit_error,omitempty"`
}
