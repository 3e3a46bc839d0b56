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
