// Package state names the states paneherd gives a pane and their order of precedence.
package state

import (
	"fmt"
	"time"
)

// State is what a pane is doing, as a person glancing at it would say.
type State string

const (
	Ready             State = "READY"
	Busy              State = "BUSY"
	NeedsConfirmation State = "NEEDS_CONFIRMATION"
	Error             State = "ERROR"
	Stalled           State = "STALLED"
	Exited            State = "EXITED" // the agent showed its own exit; its pane's process lives on
	Offline           State = "OFFLINE"
	Unknown           State = "UNKNOWN"
)

// All lists every state, in the order tables and docs show them.
var All = []State{Ready, Busy, NeedsConfirmation, Error, Stalled, Exited, Offline, Unknown}

// ruleStates are the states a pack rule may assign; the others belong to the watcher.
var ruleStates = []State{NeedsConfirmation, Busy, Error, Exited, Ready}

// Parse reads a state name as written in packs and on the command line.
func Parse(s string) (State, error) {
	for _, st := range All {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown state %q (one of %v)", s, All)
}

// ParseRuleState reads a state a pack rule may assign.
func ParseRuleState(s string) (State, error) {
	for _, st := range ruleStates {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("state %q cannot be set by a rule (one of %v)", s, ruleStates)
}

// Precedence orders rule states when several rules match one screen: a dialog beats a
// spinner (the CLI waits on the person even while its timer ticks), a spinner beats old
// errors, an error shown last beats the exit it caused, and an agent's exit beats the
// idle prompt it left above it. Higher wins.
func Precedence(s State) int {
	switch s {
	case NeedsConfirmation:
		return 5
	case Busy:
		return 4
	case Error:
		return 3
	case Exited:
		return 2
	case Ready:
		return 1
	}
	return 0
}

// NeedsAttention reports whether a person should look at a pane in this state.
func (s State) NeedsAttention() bool {
	return s == NeedsConfirmation || s == Error || s == Stalled
}

// NewlyReady is how recent an agent's READY must be to count as news: its turn just
// finished and a person may want to read what it did.
const NewlyReady = 10 * time.Minute

// Attention says how urgently a person is needed by a pane in state s since since: a
// dialog (4), an error (3), a stall (2), an agent newly READY (1), not at all (0). agent:
// the pane runs an agent, not a plain shell, whose READY is no news.
func Attention(s State, agent bool, since, now time.Time) int {
	switch s {
	case NeedsConfirmation:
		return 4
	case Error:
		return 3
	case Stalled:
		return 2
	case Ready:
		if agent && now.Sub(since) < NewlyReady {
			return 1
		}
	}
	return 0
}
