//go:build !linux

package proc

import (
	"errors"
	"time"
)

// Held is hold_linux.go's set of processes held by pidfd; other systems have no pidfd.
type Held struct{}

var errNoPidfd = errors.New("proc: holding processes needs Linux (pidfd)")

// HoldTree fails: without a pidfd a pid read now may name another process later.
func HoldTree(root int, confirmed func() bool) (*Held, error) { return nil, errNoPidfd }

// HoldSession fails, as HoldTree does.
func HoldSession(sid int) (*Held, error) { return nil, errNoPidfd }

// End ends nothing.
func (h *Held) End(grace time.Duration) int { return 0 }

// Release releases nothing.
func (h *Held) Release() {}
