// Package live holds a value one goroutine replaces while others read it: a part's
// configuration, which a reload of the options changes under it. Readers never wait
// for a writer, and each gets a whole value as one Store left it.
package live

import (
	"sync"
	"sync/atomic"
)

// Value is a T that Store replaces. Its zero value holds the zero T, at version 0.
// Value must not be copied after first use.
type Value[T any] struct {
	mu     sync.Mutex // Stores take turns, so versions count them in order
	latest atomic.Pointer[stored[T]]
}

type stored[T any] struct {
	v       T
	version uint64
}

// Store replaces the value; its version is one more than the one before.
func (x *Value[T]) Store(v T) {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, n := x.LoadVersion()
	x.latest.Store(&stored[T]{v, n + 1})
}

// Load returns the value as last stored.
func (x *Value[T]) Load() T {
	v, _ := x.LoadVersion()
	return v
}

// LoadVersion returns the value and how many times it has been stored, read together: a
// reader that remembers the version knows, at its next look, whether the value changed.
func (x *Value[T]) LoadVersion() (T, uint64) {
	if s := x.latest.Load(); s != nil {
		return s.v, s.version
	}
	var zero T
	return zero, 0
}
