// Package outcome is the one table of how an action or a wait on a pane can end, with
// the exit code each has: the code (deliver, herd), the commands' usage texts and the
// table of docs/acting.md are made from it, and a test keeps that table in step.
package outcome

import (
	"fmt"
	"strings"
)

// Outcome is how a send, an approve or deny, or a wait ended.
type Outcome string

// Actions (send, approve, deny).
const (
	Delivered          Outcome = "DELIVERED"
	Queued             Outcome = "QUEUED"
	Answered           Outcome = "ANSWERED"
	DryRun             Outcome = "DRY_RUN"
	TargetNotFound     Outcome = "TARGET_NOT_FOUND"
	PaneDead           Outcome = "PANE_DEAD"
	SendKeysError      Outcome = "SEND_KEYS_ERROR"
	AckTimeout         Outcome = "ACK_TIMEOUT"
	OperatorBusy       Outcome = "OPERATOR_BUSY"
	DeferTimeout       Outcome = "DEFER_TIMEOUT"
	TriggerRateLimited Outcome = "TRIGGER_RATE_LIMITED"
	NotReady           Outcome = "NOT_READY"
	NotADialog         Outcome = "NOT_A_DIALOG"
	DialogStillShown   Outcome = "DIALOG_STILL_SHOWN"
	Interrupted        Outcome = "INTERRUPTED"
)

// Final states of a wait.
const (
	Completed         Outcome = "completed"
	Reached           Outcome = "reached"
	NotFound          Outcome = "not_found"
	NeedsConfirmation Outcome = "needs_confirmation"
	Crashed           Outcome = "crashed"
	Stuck             Outcome = "stuck"
	Timeout           Outcome = "timeout"
)

// Entry is one row of the table.
type Entry struct {
	Outcome  Outcome
	Code     int
	Commands []string // the commands that end this way
	Meaning  string
}

var (
	send   = []string{"send"}
	answer = []string{"approve", "deny"}
	acts   = []string{"send", "approve", "deny"}
	wait   = []string{"wait"}
	// create waits for the worker it started to be READY, as wait --until READY does.
	started = []string{"wait", "create"}
)

// Table lists every outcome, in the order of its exit code.
var Table = []Entry{
	{Delivered, 0, send, "the prompt was taken: the pane went BUSY, its input box changed, or it wrote `ACK_TRIGGER:ID` (--envelope)"},
	{Queued, 0, send, "--queue: kept until the pane is READY"},
	{Answered, 0, answer, "the keys were pressed and the dialog went away"},
	{DryRun, 0, []string{"policy"}, "`@paneherd-policy dry-run`: the policy decided on a fresh, steady look at the dialog and the audit says what it would have done; nothing was pressed"},
	{Completed, 0, wait, "READY after having worked"},
	{Reached, 0, started, "`wait --until`: the pane reached that state; `create`: the worker is READY"},
	{TargetNotFound, 10, acts, "no such pane"},
	{NotFound, 10, wait, "no such pane"},
	{PaneDead, 11, acts, "its process has exited"},
	{SendKeysError, 12, acts, "tmux refused, or keys cannot go safely (input off, synchronized panes)"},
	{AckTimeout, 13, send, "sent, retried, never taken; the pack's `fallback` command runs if it has one, and a managed worker is restarted with its resume command (at most 2 in a row)"},
	{OperatorBusy, 14, acts, "a person is there: copy or view mode, or a draft in the input box"},
	{DeferTimeout, 15, send, "a person kept typing in the session"},
	{TriggerRateLimited, 16, acts, "too many actions on this pane lately, or one is under way"},
	{NotReady, 17, send, "the pane is busy or waiting; `--queue` delivers later"},
	{NotADialog, 18, answer, "the screen shows no dialog paneherd may answer"},
	{DialogStillShown, 19, answer, "keys pressed, the dialog stayed"},
	{NeedsConfirmation, 20, started, "the worker waits for a person (`create`: before it was ever READY, a trust dialog say)"},
	{Crashed, 21, started, "ERROR, EXITED (the agent quit, its pane lives on), its process died, or the pane is gone"},
	{Stuck, 22, wait, "STALLED"},
	{Timeout, 23, started, "`--timeout` passed"},
	{Interrupted, 24, send, "the daemon stopped, or was killed, after the prompt was typed and before it was seen taken: it may be in the pane, submitted or not; look before sending it again"},
}

// Unknown is the exit code of an outcome the table does not know: an error, never a
// success.
const Unknown = 1

// Code is the exit code of o; Unknown when the table does not have it.
func Code(o Outcome) int {
	for _, e := range Table {
		if e.Outcome == o {
			return e.Code
		}
	}
	return Unknown
}

// OK reports whether o is a success.
func OK(o Outcome) bool { return Code(o) == 0 }

// Usage is the "outcomes and exit codes" paragraph of a command's usage text, one line
// that the help wraps, with the blank line before it.
func Usage(command string) string {
	var parts []string
	for _, e := range Table {
		if has(e.Commands, command) {
			parts = append(parts, fmt.Sprintf("%s %d", e.Outcome, e.Code))
		}
	}
	return "\nOutcomes and exit codes: " + strings.Join(parts, ", ") + ".\n"
}

// Markdown is docs/acting.md's table of outcomes.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| outcome | exit | commands | meaning |\n|---|---|---|---|\n")
	for _, e := range Table {
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", e.Outcome, e.Code, strings.Join(e.Commands, ", "), e.Meaning)
	}
	return b.String()
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
