package statusline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paneherd/paneherd/store"
)

// Snapshot is what the daemon publishes after every change, for readers that must never
// wait: `status` in a #() job, scripts polling `status --json`.
type Snapshot struct {
	Updated time.Time    `json:"updated"`
	PID     int          `json:"pid"`  // the daemon that wrote it
	Line    string       `json:"line"` // the rendered status line, tmux-escaped
	Panes   []store.Pane `json:"panes"`
}

// WriteSnapshot replaces the snapshot atomically: a temp file in the same directory,
// then rename, so a reader sees the old snapshot or the new one, never half of one. The
// temp file has a fixed name: only the daemon writes here (it holds the lock), and it
// writes after every change, so each write is four system calls and no more.
func WriteSnapshot(path string, s Snapshot) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("statusline: encode snapshot: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("statusline: write snapshot: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
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
