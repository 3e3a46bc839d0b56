package controlmode

import (
	"maps"
	"sync"
)

// Counts tallies what control clients cost tmux: the commands they sent, by name, and
// the notifications tmux sent them, by kind, with the bytes of %output relayed. The
// benchmark reads them to say where the server's share of paneherd's CPU goes. One
// Counts may serve several clients; it is safe for concurrent use.
type Counts struct {
	mu            sync.Mutex
	commands      map[string]uint64
	notifications map[string]uint64
	outputBytes   uint64
}

// NewCounts returns empty counts.
func NewCounts() *Counts {
	return &Counts{commands: map[string]uint64{}, notifications: map[string]uint64{}}
}

func (k *Counts) command(name string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	k.commands[name]++
	k.mu.Unlock()
}

func (k *Counts) notification(kind string, size int) {
	if k == nil {
		return
	}
	k.mu.Lock()
	k.notifications[kind]++
	if kind == "output" {
		k.outputBytes += uint64(size)
	}
	k.mu.Unlock()
}

// Snapshot returns copies of the counts so far: commands by name, notifications by kind,
// and the bytes of the %output lines read.
func (k *Counts) Snapshot() (commands, notifications map[string]uint64, outputBytes uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.commands), maps.Clone(k.notifications), k.outputBytes
}
