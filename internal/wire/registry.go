package wire

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/paneherd/paneherd/internal/paths"
)

// Registry is the published registry of managed workers: what `paneherd workers` and
// `status --json` read without asking the daemon.
type Registry struct {
	PID     int      `json:"pid"` // the daemon that wrote it
	Workers []Worker `json:"workers"`
}

// WriteRegistry replaces the registry file atomically (paths.WriteAtomic).
func WriteRegistry(path string, r Registry) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return paths.WriteAtomic(path, data)
}

// ReadRegistry reads a published registry; a missing file is an empty registry (no
// worker was ever created, or the daemon has not started its supervisor yet).
func ReadRegistry(path string) (Registry, error) {
	var r Registry
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("read the workers registry: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("read the workers registry %s: %w", path, err)
	}
	return r, nil
}
