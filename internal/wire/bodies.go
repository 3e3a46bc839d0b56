package wire

import "time"

// SendAsk is the body of OpSend.
type SendAsk struct {
	SendRequest
	Queue bool `json:"queue,omitempty"` // not READY: keep it until the pane is
}

// History is the answer to OpHistory: the pane's transitions, notifications and actions
// (sends, approvals, denials), each oldest first.
type History struct {
	Transitions   []Transition   `json:"transitions"`
	Notifications []Notification `json:"notifications"`
	Triggers      []Trigger      `json:"triggers"`
	// Events are managed workers' runtime events (restarts, nudges, ...) at the pane.
	Events []WorkerEvent `json:"events"`
}

// Empty reports whether the history holds nothing: the store never heard of its pane
// or worker.
func (h History) Empty() bool {
	return len(h.Transitions) == 0 && len(h.Notifications) == 0 && len(h.Triggers) == 0 && len(h.Events) == 0
}

// Metrics is the answer to OpMetrics: the daemon's metrics in the Prometheus text
// exposition format.
type Metrics struct {
	Text string `json:"text"`
}

// About is the answer to OpAbout: the running daemon as `paneherd doctor` reports it.
// Its files are as the daemon found them: its environment, not the asker's, decided them.
type About struct {
	PID     int       `json:"pid"`
	Version string    `json:"version"` // the daemon's paneherd (an older one's answer has none)
	Started time.Time `json:"started"`
	// Observer is how it looks at tmux: "control" or "poll" (control mode may have
	// fallen back to polling).
	Observer string `json:"observer"`
	Schema   int    `json:"schema"` // its database's schema version
	DB       string `json:"db"`
	Log      string `json:"log"`
	// Damaged counts its database's records that no longer decode, which history skips.
	Damaged int `json:"damaged,omitempty"`
	// Bus is the desktop session bus as the daemon finds it, in its own environment
	// (which may not be the asker's): the address and where it came from, or why none.
	Bus BusFound `json:"bus"`
	// Store is set while its database refuses writes (nil: it takes them).
	Store *StoreTrouble `json:"store,omitempty"`
	// Notify is each extra notification backend (terminal, command, webhook, sound) the
	// daemon's options turn on, as the daemon built it: what it will do or why it cannot.
	// Never null from a daemon that knows of them (an older one's answer has none).
	Notify []BackendStatus `json:"notify"`
}

// BackendStatus is one notification backend as doctor reports it.
type BackendStatus struct {
	Name  string `json:"name"`
	Found string `json:"found,omitempty"` // what it will do
	Error string `json:"error,omitempty"` // why it cannot, and what to do
	// Unused: its configuration is wrong (notify.ConfigError), so it is left out; else
	// it is there, and Error is what it said of itself.
	Unused bool `json:"unused,omitempty"`
}

// StoreTrouble is a daemon's database refusing writes: states are still published, and
// what could not be written waits in the daemon's memory until a write works.
type StoreTrouble struct {
	Error   string    `json:"error,omitempty"` // the last write's ("": none tried yet)
	Since   time.Time `json:"since,omitzero"`
	Waiting int       `json:"waiting"` // transitions not written yet
	// Dropped counts the transitions dropped meanwhile: while the store fails, each pane
	// keeps only its newest, as many as its stored history holds.
	Dropped int `json:"dropped,omitempty"`
	// ReadOnly says why the file was opened read-only, which only a restart undoes.
	ReadOnly string `json:"read_only,omitempty"`
}

// BusFound is a session bus address and where it was found, or why none was (Err).
type BusFound struct {
	Addr string `json:"addr,omitempty"`
	From string `json:"from,omitempty"`
	Err  string `json:"error,omitempty"`
}

// NotifyTestResult is the answer to OpNotifyTest.
type NotifyTestResult struct {
	Backend string `json:"backend"`         // the backends that delivered it ("desktop, webhook"), "" none
	Error   string `json:"error,omitempty"` // what failed that no other backend covered
	// Backends is what each backend did, in the order they are configured.
	Backends []BackendResult `json:"backends,omitempty"`
}

// BackendResult is one backend's part in a test notification.
type BackendResult struct {
	Name  string `json:"name"`
	Error string `json:"error,omitempty"` // "": delivered
	// Covered: it failed and another backend took its place (auto: tmux messages when the
	// desktop cannot).
	Covered bool `json:"covered,omitempty"`
}

// CreateAsk is the body of OpCreate: a worker to start (`paneherd create`).
type CreateAsk struct {
	Dir      string `json:"dir"` // absolute
	Name     string `json:"name,omitempty"`
	Pack     string `json:"pack,omitempty"`
	Session  string `json:"session,omitempty"`
	Worktree string `json:"worktree,omitempty"` // a branch: make a git worktree for it
	// Command, when given, runs instead of the pack's launch command (argv).
	Command      []string      `json:"command,omitempty"`
	Restart      string        `json:"restart,omitempty"` // on-failure (""), always, never
	HealthEvery  time.Duration `json:"health_every,omitempty"`
	HealthPrompt string        `json:"health_prompt,omitempty"`
	// HandoffAt (a percent of the model's window, 1 to 100) and HandoffPrompt go
	// together: the prompt is sent once the worker's context passes the mark.
	HandoffAt     int    `json:"handoff_at,omitempty"`
	HandoffPrompt string `json:"handoff_prompt,omitempty"`
}

// WorkerAsk is the body of OpRetire and OpContinue, and of OpHistory for a worker's
// history by its name (retired or not): the worker, by name.
type WorkerAsk struct {
	Name string `json:"name"`
}

// SnapshotAsk is the body of OpSnapshot: the snapshot the asker has (Published.Gen; 0:
// none), and how long to wait for another.
type SnapshotAsk struct {
	After uint64        `json:"after"`
	Wait  time.Duration `json:"wait"`
}

// MaxSnapshotWait bounds SnapshotAsk.Wait: a question held longer holds a goroutine and
// a connection for nothing the asker can tell from a shorter one.
const MaxSnapshotWait = time.Minute

// Published is the answer to OpSnapshot: the daemon's snapshot and its number, which
// grows with each one it publishes; Snapshot is nil when it is still the one asked
// After (the wait ran out).
type Published struct {
	Gen      uint64    `json:"gen"`
	Snapshot *Snapshot `json:"snapshot,omitempty"`
}
