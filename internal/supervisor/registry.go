package supervisor

import (
	"os"
	"sort"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/wire"
)

// list is the registry by name. Under s.mu.
func (s *Supervisor) list() []wire.Worker {
	out := make([]wire.Worker, 0, len(s.workers))
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
	if err := wire.WriteRegistry(s.Registry, wire.Registry{PID: os.Getpid(), Workers: s.list()}); err != nil {
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
