package wire

import (
	"errors"
	"fmt"
	"testing"
)

// TestAnErrorsKindSurvivesItsAnswer: what the daemon answers for an error, read back by
// the asker, is of the same kind in the same words.
func TestAnErrorsKindSurvivesItsAnswer(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		kind *Error
	}{
		{"a sentinel wrapped", fmt.Errorf("%w: %q: give a pane id", ErrNoTarget, "api"), ErrNoTarget},
		{"in words of its own", Errorf(ErrBadRequest, "send: %w", errors.New("unexpected end of JSON input")), ErrBadRequest},
		{"of no kind", errors.New("disk full"), ErrFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := ErrorAnswer(tt.err)
			got := FromAnswer(a)
			if a.Code != tt.kind.Code || !errors.Is(got, tt.kind) || got.Error() != tt.err.Error() {
				t.Errorf("answer %+v read back as %v; want %s in the words %q", a, got, tt.kind.Code, tt.err)
			}
		})
	}
	if err := FromAnswer(Answer{Body: []byte("{}")}); err != nil {
		t.Errorf("an answer without an error read back as %v", err)
	}
}

func TestAnErrorWithoutACodeIsAnOlderDaemons(t *testing.T) {
	err := FromAnswer(Answer{Error: "store: closed"})
	if !errors.Is(err, ErrOlderDaemon) || errors.Is(err, ErrFailed) || err.Error() != "store: closed" {
		t.Errorf("an error without a code = %v; want ErrOlderDaemon in its words", err)
	}
}

// TestErrorfKeepsWhatItWraps: on the daemon's side an error of a kind still unwraps to
// its cause.
func TestErrorfKeepsWhatItWraps(t *testing.T) {
	cause := errors.New("closed")
	err := Errorf(ErrFailed, "history: %w", cause)
	if !errors.Is(err, cause) || !errors.Is(err, ErrFailed) || errors.Is(err, ErrNoTarget) {
		t.Errorf("Errorf(ErrFailed, %%w closed) = %v: want it both ErrFailed and its cause, nothing else", err)
	}
}
