// Package fleet follows the daemons of other machines (@paneherd-hosts): one long-lived
// stream per host, `paneherd follow --json` run there through a Dialer (ssh), read into
// each host's state and panes. A host is connecting, up, stale (its heartbeats missed),
// unreachable (and why) or incompatible (its paneherd speaks another protocol). Its panes
// are never shown as current when they may not be: stale once the heartbeat is missed,
// dropped once nothing is heard for Timing.DropAfter. A lost stream is opened again after
// a wait that doubles from Timing.Backoff to Timing.MaxBackoff. An idle host costs its
// heartbeat's line and nothing else.
package fleet

import (
	"context"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

// Dialer opens host's follow stream: what `paneherd follow --json` writes there. wait
// returns once whatever wrote it is done, with why it ended (nil: it ended well); it is
// called once the stream has been read to its end or closed. Ending ctx ends the stream.
type Dialer interface {
	Dial(ctx context.Context, host string) (out io.ReadCloser, wait func() error, err error)
}

// Timing is how the fleet paces its streams.
type Timing struct {
	Backoff    time.Duration // the first wait before a lost host is dialed again; each failure doubles it
	MaxBackoff time.Duration // the longest wait
	ResetAfter time.Duration // a stream up this long was no failure: the wait is Backoff again
	// DropAfter: a host's panes are dropped this long after its last line, and a stream
	// that said nothing for this long (its first line included) is ended.
	DropAfter time.Duration
}

// DefaultTiming is the daemon's.
var DefaultTiming = Timing{Backoff: time.Second, MaxBackoff: time.Minute, ResetAfter: time.Minute, DropAfter: 30 * time.Second}

// View is the fleet as it stands: each host's status, in the order the hosts were set,
// and every host's panes as last heard, each with its Host.
type View struct {
	Hosts []wire.Host
	Panes []wire.Pane
}

// Fleet keeps a stream to each of its hosts while Run runs.
type Fleet struct {
	Dialer Dialer
	Timing Timing
	Log    zerolog.Logger
	// Changed, if set, is called whenever View changes. It must not block.
	Changed func()
	// Transition, if set, is called with each change of a host's pane's state: the
	// pane's record before it (its Host set) and the change. It must not block.
	Transition func(before wire.Pane, tr wire.Transition)

	// sleep waits d unless ctx ends first (false then): the wait before a host is dialed
	// again, which tests record.
	sleep func(ctx context.Context, d time.Duration) bool

	mu    sync.Mutex
	order []string
	links map[string]*link
	run   context.Context // Run's, nil until it starts
	wg    sync.WaitGroup
}

// New returns a fleet of no hosts that dials with d.
func New(d Dialer) *Fleet {
	return &Fleet{Dialer: d, Timing: DefaultTiming, Log: zerolog.Nop(), sleep: sleep, links: map[string]*link{}}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// SetHosts makes hosts the fleet's: a stream is opened to each new one (once Run runs),
// and the streams of those no longer in it end. Safe from any goroutine.
func (f *Fleet) SetHosts(hosts []string) {
	var names []string
	for _, h := range hosts {
		if !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	f.mu.Lock()
	if slices.Equal(names, f.order) {
		f.mu.Unlock()
		return
	}
	for name, l := range f.links {
		if !slices.Contains(names, name) {
			l.stop()
			delete(f.links, name)
		}
	}
	for _, name := range names {
		if f.links[name] == nil {
			f.links[name] = newLink(name)
			if f.run != nil {
				f.start(f.links[name])
			}
		}
	}
	f.order = names
	f.mu.Unlock()
	f.changed()
}

// Run keeps the hosts' streams until ctx ends, and returns once every one has ended.
func (f *Fleet) Run(ctx context.Context) {
	f.mu.Lock()
	f.run = ctx
	for _, name := range f.order {
		f.start(f.links[name])
	}
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	for _, l := range f.links {
		l.stop()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// start runs l's stream until it is stopped. Under f.mu.
func (f *Fleet) start(l *link) {
	ctx, cancel := context.WithCancel(f.run)
	l.cancel = cancel
	f.wg.Go(func() { f.keep(ctx, l) })
}

// View is every host's status and panes now. Safe from any goroutine.
func (f *Fleet) View() View {
	f.mu.Lock()
	defer f.mu.Unlock()
	var v View
	for _, name := range f.order {
		l := f.links[name]
		v.Hosts = append(v.Hosts, l.host)
		v.Panes = append(v.Panes, statusline.Sorted(l.paneList())...)
	}
	return v
}

func (f *Fleet) changed() {
	if f.Changed != nil {
		f.Changed()
	}
}
