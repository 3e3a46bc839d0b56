package wire

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/paneherd/paneherd/internal/paths"
)

// Snapshot is what the daemon publishes after every change, for readers that must never
// wait: `status` in a #() job, scripts polling `status --json`.
type Snapshot struct {
	Updated time.Time `json:"updated"`
	PID     int       `json:"pid"`   // the daemon that wrote it
	Line    string    `json:"line"`  // the rendered status line, tmux-escaped
	Panes   []Pane    `json:"panes"` // this server's
	// Remote is the panes of the fleet's hosts (@paneherd-hosts), each with its Host, as
	// last heard; Hosts is how each host is reached, in the option's order. Kept apart
	// from Panes: every command that acts on a target acts on this server's panes.
	Remote []Pane `json:"remote,omitempty"`
	Hosts  []Host `json:"hosts,omitempty"`
}

// The snapshot's errors start "statusline:", words people and scripts have seen.

// WriteSnapshot replaces the snapshot atomically (paths.WriteAtomic): a reader sees the
// old snapshot or the new one, never half of one.
func WriteSnapshot(path string, s Snapshot) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("statusline: encode snapshot: %w", err)
	}
	if err := paths.WriteAtomic(path, data); err != nil {
		return fmt.Errorf("statusline: write snapshot: %w", err)
	}
	return nil
}

// ReadSnapshot reads the snapshot at path.
func ReadSnapshot(path string) (Snapshot, error) {
	var s Snapshot
	data, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("statusline: read snapshot: %w", err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("statusline: read snapshot %s: %w", path, err)
	}
	return s, nil
}
