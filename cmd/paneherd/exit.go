package main

import (
	"errors"
	"fmt"
	"io"
)

// Exit codes, decided here and nowhere else.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// outcomeCodes are the exit codes of send, approve, deny and wait: each outcome its own,
// so a script can branch without parsing output. Documented in the README.
var outcomeCodes = map[string]int{
	"DELIVERED": 0, "QUEUED": 0, "ANSWERED": 0, "completed": 0, "reached": 0,
	"TARGET_NOT_FOUND": 10, "not_found": 10,
	"PANE_DEAD":            11,
	"SEND_KEYS_ERROR":      12,
	"ACK_TIMEOUT":          13,
	"OPERATOR_BUSY":        14,
	"DEFER_TIMEOUT":        15,
	"TRIGGER_RATE_LIMITED": 16,
	"NOT_READY":            17,
	"NOT_A_DIALOG":         18,
	"DIALOG_STILL_SHOWN":   19,
	"needs_confirmation":   20,
	"crashed":              21,
	"stuck":                22,
	"timeout":              23,
}

// outcomeExit ends a command whose result was printed: its outcome decides the exit code,
// and msg, if any, goes to stderr.
type outcomeExit struct {
	outcome string
	msg     string
}

func (o *outcomeExit) Error() string { return o.outcome + ": " + o.msg }

// finish returns nil for a successful outcome, else an outcomeExit.
func finish(outcome, msg string) error {
	if outcomeCodes[outcome] == 0 {
		return nil
	}
	return &outcomeExit{outcome: outcome, msg: msg}
}

// usageError is a command line we cannot read: exit 2, with the usage.
type usageError struct {
	msg   string
	usage string
}

func (e *usageError) Error() string { return e.msg }

func usagef(usage, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), usage: usage}
}

// helpRequested is -h: the usage goes to stdout and it is not a failure.
type helpRequested struct{ usage string }

func (h *helpRequested) Error() string { return "help requested" }

// exitCode prints err for a person and turns it into the process's exit code.
func exitCode(err error, stdout, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var help *helpRequested
	if errors.As(err, &help) {
		io.WriteString(stdout, help.usage)
		return exitOK
	}
	var out *outcomeExit
	if errors.As(err, &out) {
		if out.msg != "" {
			fmt.Fprintf(stderr, "paneherd: %s: %s\n", out.outcome, out.msg)
		}
		if code, ok := outcomeCodes[out.outcome]; ok {
			return code
		}
		return exitError
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "paneherd: %s\n", ue.msg)
		if ue.usage != "" {
			fmt.Fprintf(stderr, "\n%s", ue.usage)
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "paneherd: %s\n", err)
	return exitError
}
