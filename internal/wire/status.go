package wire

import (
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
)

// PaneStatus is one pane as `status --json` and the MCP server show it: the public
// shape, kept apart from the database record so the record can grow without changing
// what scripts and orchestrators read.
type PaneStatus struct {
	PaneID string `json:"pane_id"`
	// Host is the machine the pane is on (@paneherd-hosts); "" for this server's.
	Host        string `json:"host"`
	Session     string `json:"session"`
	Window      string `json:"window"`
	WindowIndex int    `json:"window_index"`
	PaneIndex   int    `json:"pane_index"`
	Name        string `json:"name"`
	Pack        string `json:"pack"`
	State       string `json:"state"`
	Rule        string `json:"rule"` // the pack's rule (or the watcher's, or hook:AGENT:EVENT) that set the state
	// Witness is who holds the state now: "screen" (the pack's reading) or "hook" (an
	// agent hook's event the screen has not confirmed yet).
	Witness string    `json:"witness"`
	Summary string    `json:"summary"`
	Since   time.Time `json:"since"`
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	CWD     string    `json:"cwd"`
	// Context is how full its agent's context window is, when the agent tells
	// (docs/context.md).
	Context *Context `json:"context,omitempty"`
	// Worker is the supervisor's record when the pane is a managed worker's
	// (paneherd create): runtime status, restarts, heartbeat, last trigger.
	Worker *Worker `json:"worker,omitempty"`
}

// WaitResult is how a wait ended.
type WaitResult struct {
	FinalState outcome.Outcome `json:"final_state"`
	State      string          `json:"state"`
	PaneID     string          `json:"pane_id"`
	Name       string          `json:"name"`
	ElapsedMS  int64           `json:"elapsed_ms"`
	Summary    string          `json:"summary"`
}

// Created is how a create went: the worker as registered, how waiting for it to be READY
// ended, and the first prompt's delivery, if one was given.
type Created struct {
	Worker  Worker     `json:"worker"`
	Started WaitResult `json:"started"`
	Prompt  *Result    `json:"prompt,omitempty"`
}
