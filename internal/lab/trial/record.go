package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// recording is one agent's session as it happened: what the script did, what the pane
// showed every 100 ms, and every state the daemon published for the pane. It is saved
// beside the report so the labels can be computed again (-replay) without the CLIs.
type recording struct {
	Agent   string   `json:"agent"`
	Pane    string   `json:"pane"`
	Idle    []string `json:"idle,omitempty"` // what animates while idle (agent.idle)
	Actions []action `json:"actions"`
	Samples []sample `json:"samples"`
	Shown   []shown  `json:"shown"`
	Notes   []string `json:"notes,omitempty"` // what the script saw go wrong
	Load    string   `json:"load"`            // the machine's load average when it ended
}

// action is one thing the script did to the pane.
type action struct {
	At   time.Time `json:"at"` // when its keystroke reached tmux
	Name string    `json:"name"`
	// Kind: "type" (text typed into the input, not submitted: the state does not change),
	// "submit" (Enter, a launch, a key that answers or interrupts: the agent works on it).
	Kind string `json:"kind"`
	// Marks are the screens this action may provoke that are neither BUSY nor READY.
	Marks []mark `json:"marks,omitempty"`
	// Cut: the script acts again while the agent is still busy (an interrupt follows), so
	// the end of this action's interval is no final frame.
	Cut bool `json:"cut,omitempty"`
}

// mark is a screen the script expects: while more lines match Pattern than did when the
// action started, the true state is State.
type mark struct {
	State   string `json:"state"`
	Pattern string `json:"pattern"`
}

// sample is the pane's screen at one tick, and the state the daemon showed then.
type sample struct {
	At     time.Time `json:"at"`
	Screen []string  `json:"screen"`
	Shown  string    `json:"shown"` // "" when the snapshot had no such pane
}

// shown is one change of the state the daemon published for the pane, read from its
// snapshot file every 20 ms; At is the snapshot's own time when it falls in that window.
type shown struct {
	At    time.Time `json:"at"`
	State string    `json:"state"`
	Rule  string    `json:"rule,omitempty"`
}

func writeRecording(path string, rec recording) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode recording: %w", err)
	}
	return os.WriteFile(path, data, 0o644)
}

func readRecording(path string) (recording, error) {
	var rec recording
	data, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("read %s: %w", path, err)
	}
	return rec, nil
}
