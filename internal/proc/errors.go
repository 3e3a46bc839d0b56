package proc

import "errors"

// ErrNoProcess is returned by Descendants and HoldTree when the root process
// does not exist (any more).
var ErrNoProcess = errors.New("no such process")

// ErrNotConfirmed is returned by HoldTree when its caller no longer confirms that the
// pid names the process meant.
var ErrNotConfirmed = errors.New("no longer the process meant")
