package wire

import (
	"errors"
	"fmt"
	"strings"
)

// Error is an error whose kind survives the query socket: the daemon answers with its
// Code beside its words (Answer.Code), and the asker gets an Error of the same Code back
// (FromAnswer), so errors.Is against the sentinels below holds on either side.
type Error struct {
	Code    string
	Message string
	cause   error // what it wraps on this side of the socket, if anything
}

func (e *Error) Error() string { return e.Message }

// Is reports whether target is an Error of the same Code: the kinds below are compared
// by code, as only the code crosses the socket.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func (e *Error) Unwrap() error { return e.cause }

// The kinds of error, each defined once.
var (
	// ErrNoDaemon: no daemon runs for the tmux server, or none answers on its socket.
	ErrNoDaemon = &Error{Code: "no_daemon", Message: "no paneherd daemon runs for this tmux server"}
	// ErrNoTarget: a target names no pane or managed worker, or several.
	ErrNoTarget = &Error{Code: "no_target", Message: "no such pane"}
	// ErrPaneGone: the pane was there and is no longer.
	ErrPaneGone = &Error{Code: "pane_gone", Message: "the pane is gone"}
	// ErrUnknownOp: the daemon does not know the operation (a paneherd of another version).
	ErrUnknownOp = &Error{Code: "unknown_op", Message: "unknown question"}
	// ErrBadRequest: the request cannot be read, or lacks the body its operation needs.
	ErrBadRequest = &Error{Code: "bad_request", Message: "bad request"}
	// ErrOlderDaemon: an error answer without a code, which only a daemon older than
	// codes sends; its words are kept.
	ErrOlderDaemon = &Error{Code: "older_daemon", Message: "an older paneherd daemon failed"}
	// ErrFailed: the operation failed for a reason of no kind above (a store that refuses
	// writes, tmux failing).
	ErrFailed = &Error{Code: "failed", Message: "failed"}
)

// Errorf is an error of kind's code in words of its own (fmt.Errorf's, %w included).
func Errorf(kind *Error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: kind.Code, Message: err.Error(), cause: err}
}

// CodeOf is the code an error answer carries for err: its kind's, else ErrFailed's.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ErrFailed.Code
}

// ErrorAnswer is the answer that reports err.
func ErrorAnswer(err error) Answer {
	return Answer{Error: err.Error(), Code: CodeOf(err)}
}

// FromAnswer is the error an answer reports (nil: none), of the kind its code says; one
// without a code is ErrOlderDaemon in the older daemon's words.
func FromAnswer(a Answer) error {
	switch {
	case a.Error == "" && a.Code == "":
		return nil
	case a.Code == "" && strings.HasPrefix(a.Error, ErrUnknownOp.Message):
		// A daemon older than codes said so only in words; they are its one way to tell
		// an operation it does not know from a failure.
		return &Error{Code: ErrUnknownOp.Code, Message: a.Error}
	case a.Code == "":
		return &Error{Code: ErrOlderDaemon.Code, Message: a.Error}
	}
	return &Error{Code: a.Code, Message: a.Error}
}

// NoWorker is the error for a managed worker name that is not one of have: the daemon's
// and the registry file's readers say it alike.
func NoWorker(name string, have []string) error {
	if len(have) == 0 {
		return Errorf(ErrNoTarget, "no managed worker %q: there are none (paneherd create starts one)", name)
	}
	return Errorf(ErrNoTarget, "no managed worker %q (have: %s)", name, strings.Join(have, ", "))
}
