package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/store"
)

// Registry is the published registry: what `paneherd workers` and `status --json` read
// without asking the daemon.
type Registry struct {
	PID     int            `json:"pid"` // the daemon that wrote it
	Workers []store.Worker `json:"workers"`
}

// list is the registry by name. Under s.mu.
func (s *Supervisor) list() []store.Worker {
	out := make([]store.Worker, 0, len(s.workers))
	for _, w := range s.workers {
		out = append(out, *w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// publish writes the registry file. Under s.mu.
func (s *Supervisor) publish() {
	if s.Registry == "" {
		return
	}
	s.published = s.now()
	data, err := json.Marshal(Registry{PID: os.Getpid(), Workers: s.list()})
	if err == nil {
		err = paths.WriteAtomic(s.Registry, data)
	}
	if err != nil {
		s.Log.Warn().Err(err).Msg("registry not published")
		s.written = paths.Written{} // republishLost tries again
		return
	}
	s.written.Note(s.Registry)
}

// republishLost publishes the registry again when someone removed, garbled or replaced
// the file since (one stat per reconcile): with no worker changing, nothing else would,
// and `workers` would fail or show none until then.
func (s *Supervisor) republishLost() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Registry != "" && s.written.Changed(s.Registry) {
		s.publish()
	}
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
