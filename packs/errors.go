package packs

import (
	"errors"
	"fmt"
)

// ErrUnknownPack is returned by Set.Get (wrapped) when no pack has the name asked for.
var ErrUnknownPack = errors.New("unknown pack")

// Error is a problem in one pack file, located so the user can fix it.
type Error struct {
	File string
	Line int // 0 when the problem belongs to the whole file
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}
