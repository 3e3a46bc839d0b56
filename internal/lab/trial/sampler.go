package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

const (
	sampleEvery = 100 * time.Millisecond // the grid the truth and agreement are judged on
	shownEvery  = 20 * time.Millisecond  // how often the snapshot file is read, for latencies
)

// labServer is the lab's tmux server; each command gives up after commandTimeout.
func labServer(socket string) tmux.Server {
	return tmux.Server{Name: socket, Timeout: commandTimeout}
}

const commandTimeout = 5 * time.Second

// snapshotPath is where the daemon of the server publishes its snapshot (internal/paths).
func snapshotPath(srv tmux.Server) (string, error) {
	dir, err := paths.ForServer(srv.SocketPath(), "", os.Getenv)
	if err != nil {
		return "", err
	}
	return dir.Snapshot(), nil
}

// sampler records a pane: its screen every sampleEvery and the daemon's published state
// for it every shownEvery. Reading the snapshot file asks the daemon nothing, so watching
// does not change what is watched; the captures are one tmux command each, as a status
// bar's refresh is.
type sampler struct {
	tmux     tmux.Server
	pane     string
	snapshot string

	mu      sync.Mutex
	samples []sample
	shown   []shown
	wg      sync.WaitGroup
}

func (s *sampler) start(ctx context.Context) {
	s.wg.Add(2)
	go s.loop(ctx, sampleEvery, s.capture)
	go s.loop(ctx, shownEvery, s.readShown)
}

// wait returns once both loops have ended (their context is done).
func (s *sampler) wait() { s.wg.Wait() }

func (s *sampler) loop(ctx context.Context, every time.Duration, tick func()) {
	defer s.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			tick()
		}
	}
}

func (s *sampler) capture() {
	out, err := s.tmux.Run(context.Background(), nil, "capture-pane", "-p", "-t", s.pane)
	if err != nil {
		return
	}
	at := time.Now()
	screen := strings.Split(strings.TrimRight(out, "\n"), "\n")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = append(s.samples, sample{At: at, Screen: screen, Shown: s.current()})
}

func (s *sampler) current() string {
	if len(s.shown) == 0 {
		return ""
	}
	return s.shown[len(s.shown)-1].State
}

// readShown notes a change of the pane's published state. The snapshot's Updated time is
// when the daemon published it; it stands for the change when it falls between the
// previous read and this one (a daemon's clock is this machine's).
func (s *sampler) readShown() {
	before := time.Now().Add(-shownEvery)
	snap, err := wire.ReadSnapshot(s.snapshot)
	now := time.Now()
	if err != nil {
		return
	}
	state, rule := "", ""
	for _, p := range snap.Panes {
		if p.ID == s.pane {
			state, rule = p.State, p.Rule
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if state == s.current() && len(s.shown) > 0 {
		return
	}
	at := now
	if snap.Updated.After(before) && snap.Updated.Before(now) {
		at = snap.Updated
	}
	s.shown = append(s.shown, shown{At: at, State: state, Rule: rule})
}

// latest returns the last n screens (fewer at the start), oldest first.
func (s *sampler) latest(n int) []sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > len(s.samples) {
		n = len(s.samples)
	}
	return append([]sample(nil), s.samples[len(s.samples)-n:]...)
}

func (s *sampler) recorded() ([]sample, []shown) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sample(nil), s.samples...), append([]shown(nil), s.shown...)
}
