package proc

import "errors"

// ErrNoProcess is returned by Descendants when the root process does not
// exist (any more).
var ErrNoProcess = errors.New("no such process")
