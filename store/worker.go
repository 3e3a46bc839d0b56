package store

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

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

const workerEventLimit = 5000

// PutWorker creates or replaces a worker's record, by name.
func (s *Store) PutWorker(w Worker) error {
	if w.Name == "" {
		return fmt.Errorf("store: put worker: no name")
	}
	err := s.db.Update(func(tx *bolt.Tx) error { return putJSON(tx.Bucket(bucketWorkers), []byte(w.Name), w) })
	if err != nil {
		return fmt.Errorf("store: put worker %s: %w", w.Name, err)
	}
	return nil
}

// DeleteWorker removes a worker's record; its events stay.
func (s *Store) DeleteWorker(name string) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketWorkers).Delete([]byte(name)) })
	if err != nil {
		return fmt.Errorf("store: delete worker %s: %w", name, err)
	}
	return nil
}

// Workers returns every worker's record, by name.
func (s *Store) Workers() ([]Worker, error) {
	out := []Worker{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketWorkers).ForEach(func(k, v []byte) error {
			var w Worker
			if err := json.Unmarshal(v, &w); err != nil {
				return fmt.Errorf("decode worker %s: %w", k, err)
			}
			out = append(out, w)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: workers: %w", err)
	}
	return out, nil
}

// AddWorkerEvent records a runtime event, dropping the oldest beyond the limit.
func (s *Store) AddWorkerEvent(e WorkerEvent) error { return workerEventLog.add(s, e) }

// WorkerEvents returns the newest limit events (all when limit <= 0) of the worker with
// that name ("": every worker), oldest first.
func (s *Store) WorkerEvents(name string, limit int) ([]WorkerEvent, error) {
	return workerEventLog.newest(s, limit, func(e WorkerEvent) bool { return name == "" || e.Worker == name })
}
