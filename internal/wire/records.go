package wire

import "time"

// Pane is the last known state of one tmux pane, as the store keeps it and the snapshot
// publishes it. State holds the state name ("READY", "BUSY", …) as plain text, as it is
// written.
type Pane struct {
	ID          string `json:"pane_id"` // tmux pane id, "%3"
	Session     string `json:"session"`
	Window      string `json:"window"`
	WindowIndex int    `json:"window_index"`
	PaneIndex   int    `json:"pane_index"`
	Name        string `json:"name"`
	Pack        string `json:"pack"`
	State       string `json:"state"`
	Rule        string `json:"rule"`
	// Witness says who holds the state: "screen" (its pack's reading) or "hook" (an
	// agent hook's event the screen has not confirmed yet).
	Witness  string    `json:"witness,omitempty"`
	Summary  string    `json:"summary"`
	Since    time.Time `json:"since"`
	Command  string    `json:"command"`
	PID      int       `json:"pid"`
	CWD      string    `json:"cwd"`
	LastSeen time.Time `json:"last_seen"`
	// Server is the tmux server process the pane belonged to ("pid:start_time"): pane ids
	// restart at %0 when a server restarts on the same socket.
	Server string `json:"server"`
	// Host is the machine the pane is on, as @paneherd-hosts names it; "" for this
	// server's own. Never stored: other machines' panes live in the fleet's memory.
	Host string `json:"host,omitempty"`
	// Context is how full its agent's context window is, when the agent tells.
	Context Context `json:"context,omitzero"`
}

// Transition records one change of a pane's state and the rule that caused it.
type Transition struct {
	PaneID  string    `json:"pane_id"`
	At      time.Time `json:"at"`
	From    string    `json:"from"`
	To      string    `json:"to"`
	Rule    string    `json:"rule"`
	Summary string    `json:"summary"`
}

// Notification is one notification paneherd sent, or tried to.
type Notification struct {
	At      time.Time `json:"at"`
	PaneID  string    `json:"pane_id"`
	Event   string    `json:"event"`
	State   string    `json:"state,omitempty"` // the pane's state it told of: the notifier's dedupe key has it
	Title   string    `json:"title"`
	Body    string    `json:"body"`
	Backend string    `json:"backend"`         // the backends that delivered it ("desktop, webhook"), "" when none did
	Error   string    `json:"error,omitempty"` // why backends failed, each named
}

// Trigger is the audit record of one action paneherd took on a pane for someone: a prompt
// sent, a dialog approved or denied. The payload itself is not kept, only its hash and
// length; a queued prompt's text is kept until it is delivered (Queued).
type Trigger struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"` // send, approve, deny
	PaneID   string    `json:"pane_id"`
	Name     string    `json:"name"`
	At       time.Time `json:"at"`
	Finished time.Time `json:"finished"`
	SHA256   string    `json:"sha256,omitempty"` // of the sanitised payload
	Length   int       `json:"length,omitempty"`
	Choice   string    `json:"choice,omitempty"` // approve: approve, always, deny
	Outcome  string    `json:"outcome"`
	Detail   string    `json:"detail,omitempty"`
	Retries  int       `json:"retries"`
	Forced   bool      `json:"forced,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Envelope string    `json:"envelope,omitempty"` // send --envelope: the id the worker acknowledges
	// Typed: keys of the action may have reached the pane (Result.Typed). A queued
	// prompt whose audited send typed nothing can go back to the queue without being typed
	// twice.
	Typed bool `json:"typed,omitempty"`
	// Rule is the policy rule that decided an automatic answer ("": a person's).
	Rule string `json:"rule,omitempty"`
}

// Queued is a prompt waiting for its pane to become READY.
type Queued struct {
	ID     string    `json:"id"`
	PaneID string    `json:"pane_id"`
	Text   string    `json:"text"`
	At     time.Time `json:"at"`
	Forced bool      `json:"forced,omitempty"`
	Reason string    `json:"reason,omitempty"`
	// Envelope is the request's (SendRequest.Envelope): a queued prompt keeps it.
	Envelope string `json:"envelope,omitempty"`
	// AgentsOnly is the request's too (SendRequest.AgentsOnly).
	AgentsOnly bool `json:"agents_only,omitempty"`
	// Server is the tmux server the pane belonged to: pane ids restart at %0 with a new
	// server, and a prompt must not go to whichever pane inherits the id.
	Server  string    `json:"server"`
	LastTry time.Time `json:"last_try,omitempty"`
	// Taking is when a daemon took it to send it; it leaves the queue once the send's
	// outcome is audited. One a new daemon finds taken was being sent when its daemon
	// died: it may be typed, so it is never sent again.
	Taking time.Time `json:"taking,omitempty"`
}

// Worker is the supervisor's record of one managed worker: a CLI paneherd started in a
// directory and keeps alive (docs/inside.md, "The supervisor"). Status holds the runtime status as
// plain text ("starting", "ready", ...), as Pane.State does.
type Worker struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Workspace string    `json:"workspace"`          // the directory it works in
	Worktree  string    `json:"worktree,omitempty"` // the branch of the git worktree made for it
	Created   time.Time `json:"created"`

	// Where it runs: the pane, its window (by name) and session, and the pane's process.
	// Server is the tmux server ("pid:start_time"), as in Pane.
	Session string `json:"session"`
	Window  string `json:"window"`
	PaneID  string `json:"pane_id"`
	Server  string `json:"server"`
	PID     int    `json:"pid"`
	// Started is when its process was launched: a daemon that starts again must not take
	// a long-lived worker for one that just started (an exit then would count as a crash).
	Started time.Time `json:"started"`

	// How it runs: the pack reading it ("" : detected), the command of a fresh start and
	// the one that continues its last conversation ("": none), and when to restart it.
	Pack    string `json:"pack,omitempty"`
	Command string `json:"command"`
	Resume  string `json:"resume,omitempty"`
	Restart string `json:"restart"` // on-failure, always, never

	Status       string    `json:"status"`
	PersonActive bool      `json:"person_active"` // someone typed in its session lately
	Heartbeat    time.Time `json:"heartbeat"`     // last seen alive
	LastTrigger  string    `json:"last_trigger,omitempty"`
	Restarts     int       `json:"restarts"`
	// Failures are the times it died of a failure lately (the crash-loop window).
	Failures []time.Time `json:"failures,omitempty"`
	// RestartDue: offline, to be restarted (kept, so a new daemon restarts it too).
	RestartDue bool `json:"restart_due,omitempty"`
	// Why says why the status is what it is, when that is not obvious: why it failed,
	// what drifted.
	Why string `json:"why,omitempty"`
	// Resumes counts restarts after unacknowledged prompts since the last acknowledged one.
	Resumes int `json:"resumes,omitempty"`

	// Health prompts: Prompt sent every Every while READY; Paused once they stop helping.
	HealthEvery  time.Duration `json:"health_every,omitempty"`
	HealthPrompt string        `json:"health_prompt,omitempty"`
	HealthPaused bool          `json:"health_paused,omitempty"`

	// Handoff: HandoffPrompt is sent once when its context passes HandoffAt percent of
	// its model's window and it is READY (0: never); HandoffSent until its context is
	// seen below the mark again (a compaction, a new conversation).
	HandoffAt     int    `json:"handoff_at,omitempty"`
	HandoffPrompt string `json:"handoff_prompt,omitempty"`
	HandoffSent   bool   `json:"handoff_sent,omitempty"`
}

// WorkerEvent is one change in a managed worker's runtime: registered, restarted, nudged,
// retired... A worker's events outlive its record.
type WorkerEvent struct {
	At     time.Time `json:"at"`
	Worker string    `json:"worker"` // its name
	ID     string    `json:"id"`     // its id: a name can be used again
	PaneID string    `json:"pane_id,omitempty"`
	Kind   string    `json:"kind"`
	Detail string    `json:"detail,omitempty"`
	// Lines are the screen's last lines, kept for a frozen worker.
	Lines []string `json:"lines,omitempty"`
}
