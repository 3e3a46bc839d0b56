package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/remote"
)

// Exit codes, decided here and nowhere else; those of outcomes come from the table in
// internal/outcome.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130 // as a shell reports a command ended by SIGINT
	// exitUnreachable: a command on HOST:TARGET never reached paneherd on the host (ssh
	// could not log in, no paneherd there), or its link broke while it ran; as ssh
	// reports its own failures. A command that ran there exits with its own code.
	exitUnreachable = 255
)

// outcomeExit ends a command whose result was printed: its outcome decides the exit code,
// and msg, if any, goes to stderr.
type outcomeExit struct {
	outcome outcome.Outcome
	msg     string
}

func (o *outcomeExit) Error() string { return string(o.outcome) + ": " + o.msg }

// finish returns nil for a successful outcome, else an outcomeExit.
func finish(o outcome.Outcome, msg string) error {
	if outcome.OK(o) {
		return nil
	}
	return &outcomeExit{outcome: o, msg: msg}
}

// usageError is a command line we cannot read: exit 2, with the usage unless short (the
// message says all, and the usage would bury it).
type usageError struct {
	msg   string
	short bool
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// wantsHelp: the command's first argument asks for its usage (run answers it for every
// command; parseFlags takes -h anywhere else).
func wantsHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help")
}

// exitCode prints err for a person and turns it into the process's exit code; usage is
// what -h (flag.ErrHelp) and a usage error print.
func exitCode(err error, usage func() string, stdout, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(stdout, usage())
		return exitOK
	}
	var out *outcomeExit
	if errors.As(err, &out) {
		if out.msg != "" {
			fmt.Fprintf(stderr, "paneherd: %s: %s\n", out.outcome, out.msg)
		}
		return outcome.Code(out.outcome)
	}
	var hostExit *remote.ExitError
	if errors.As(err, &hostExit) {
		return hostExit.Code // the host's paneherd said why, on stderr
	}
	var failure *remote.Failure
	if errors.As(err, &failure) {
		fmt.Fprintf(stderr, "paneherd: %s\n", failure.Reason)
		return exitUnreachable
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "paneherd: interrupted")
		return exitInterrupted
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "paneherd: %s\n", ue.msg)
		if !ue.short {
			fmt.Fprintf(stderr, "\n%s", usage())
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "paneherd: %s\n", err)
	return exitError
}
