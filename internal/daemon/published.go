package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// bulletin is the snapshot last published, for the askers of OpSnapshot: each waits on
// changed, which the next publish closes. A waiting asker costs a goroutine and a timer,
// nothing while nothing changes.
type bulletin struct {
	mu      sync.Mutex
	gen     uint64
	snap    *wire.Snapshot
	changed chan struct{}
	waiting int // askers waiting on changed now
}

// newBulletin numbers its snapshots from the clock, so an asker that kept a number from
// the daemon before this one (a restart) is told of this one's at once.
func newBulletin() *bulletin {
	return &bulletin{gen: uint64(time.Now().UnixNano()), changed: make(chan struct{})}
}

// post is the watcher's Published: it never blocks.
func (b *bulletin) post(s wire.Snapshot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen++
	b.snap = &s
	close(b.changed)
	b.changed = make(chan struct{})
}

// next answers OpSnapshot: the snapshot at once when there is one and it is not after's,
// else the next one published within wait, else none (Snapshot nil).
func (b *bulletin) next(ctx context.Context, ask wire.SnapshotAsk) wire.Published {
	b.mu.Lock()
	gen, snap, changed := b.gen, b.snap, b.changed
	if snap != nil && gen != ask.After {
		b.mu.Unlock()
		return wire.Published{Gen: gen, Snapshot: snap}
	}
	b.waiting++
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.waiting--
		b.mu.Unlock()
	}()
	timer := time.NewTimer(min(ask.Wait, wire.MaxSnapshotWait))
	defer timer.Stop()
	select {
	case <-changed:
		b.mu.Lock()
		defer b.mu.Unlock()
		return wire.Published{Gen: b.gen, Snapshot: b.snap}
	case <-timer.C:
	case <-ctx.Done():
	}
	return wire.Published{Gen: gen}
}

// askers is how many askers wait for the next snapshot now.
func (b *bulletin) askers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting
}
