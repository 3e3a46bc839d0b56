package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// link is one host: its status, its panes as last heard, and the timers that make them
// stale and drop them. Guarded by the fleet's mu.
type link struct {
	host  wire.Host
	panes map[string]wire.Pane
	beat  time.Duration // the heartbeat its stream announced
	// staleAt makes the host stale when its heartbeat is missed; dropAt drops its panes
	// and ends its stream when nothing is heard for DropAfter. Both restart at each line.
	staleAt, dropAt *time.Timer
	// endStream ends the stream open now (nil: none), with why.
	endStream context.CancelCauseFunc
	cancel    context.CancelFunc // ends the link (SetHosts, Run's end)
	stopped   bool
	// droppedAt is when its panes were dropped (zero: they were not since it was last up):
	// what comes back in a state needing a person came to it while nothing was heard.
	droppedAt time.Time
}

func newLink(name string) *link {
	return &link{host: wire.Host{Name: name, State: wire.HostConnecting, Since: time.Now()}}
}

// stop ends the link and its timers. Under f.mu.
func (l *link) stop() {
	l.stopped = true
	if l.cancel != nil {
		l.cancel()
	}
	for _, t := range []*time.Timer{l.staleAt, l.dropAt} {
		if t != nil {
			t.Stop()
		}
	}
}

func (l *link) paneList() []wire.Pane {
	out := make([]wire.Pane, 0, len(l.panes))
	for _, p := range l.panes {
		out = append(out, p)
	}
	return out
}

// setState moves the host to st, and says whether that is a change. Under f.mu.
func (l *link) setState(st, why string) bool {
	if l.host.State == st && l.host.Why == why {
		return false
	}
	l.host.State, l.host.Why, l.host.Since = st, why, time.Now()
	return true
}

// keep opens l's stream again each time it is lost, after a wait that doubles up to
// MaxBackoff, until ctx ends.
func (f *Fleet) keep(ctx context.Context, l *link) {
	wait := f.Timing.Backoff
	for {
		upFor := f.stream(ctx, l)
		if ctx.Err() != nil {
			return
		}
		if upFor >= f.Timing.ResetAfter {
			wait = f.Timing.Backoff
		}
		if !f.sleep(ctx, wait) {
			return
		}
		wait = min(2*wait, f.Timing.MaxBackoff)
	}
}

// stream opens one stream to l's host and reads it to its end, and returns how long it
// was up (0: it never was).
func (f *Fleet) stream(ctx context.Context, l *link) time.Duration {
	sctx, end := context.WithCancelCause(ctx)
	defer end(nil)
	out, wait, err := f.Dialer.Dial(sctx, l.host.Name)
	if err != nil {
		f.lost(l, err, nil)
		return 0
	}
	f.mu.Lock()
	l.endStream = end
	f.mu.Unlock()
	lines := make(chan string)
	go readLines(out, lines)
	var up time.Time
	err = f.follow(sctx, l, lines, &up)
	end(err)
	out.Close()
	for range lines {
	}
	f.mu.Lock()
	l.endStream = nil
	f.mu.Unlock()
	if ctx.Err() == nil {
		f.lost(l, err, wait())
	} else {
		wait()
	}
	if up.IsZero() {
		return 0
	}
	return time.Since(up)
}

// follow reads the stream: its first protocol line, then every line after it, until
// it ends or one is not the protocol's. up is set when the first line is taken.
func (f *Fleet) follow(ctx context.Context, l *link, lines <-chan string, up *time.Time) error {
	first, err := f.awaitFirst(ctx, lines)
	if err != nil {
		return err
	}
	if err := compatible(first); err != nil {
		return err
	}
	f.hello(l, first)
	*up = time.Now()
	for {
		select {
		case text, ok := <-lines:
			if !ok {
				return errEnded
			}
			line, err := parseLine(text)
			if err != nil {
				return err
			}
			if line.Type == wire.FollowSnapshot {
				return errors.New("its paneherd sent a second snapshot line")
			}
			if err := f.apply(ctx, l, line); err != nil {
				return err
			}
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// awaitFirst skips what comes before the first protocol line (a remote shell's rc files
// print there) and returns it; a stream that says nothing for DropAfter is given up on.
func (f *Fleet) awaitFirst(ctx context.Context, lines <-chan string) (firstLine, error) {
	timeout := time.NewTimer(f.Timing.DropAfter)
	defer timeout.Stop()
	skipped := 0
	for {
		select {
		case text, ok := <-lines:
			if !ok {
				return firstLine{}, errEnded
			}
			if first, ok := parseFirst(text); ok {
				return first, nil
			}
			if skipped++; skipped > maxNoise {
				return firstLine{}, errNoStream
			}
		case <-timeout.C:
			return firstLine{}, errNoFirstLine
		case <-ctx.Done():
			return firstLine{}, context.Cause(ctx)
		}
	}
}

// hello takes the first line: the host is up, its panes are the line's. A pane kept
// from a stream lost moments ago whose state differs now has changed.
func (f *Fleet) hello(l *link, first firstLine) {
	f.mu.Lock()
	l.setState(wire.HostUp, "")
	l.host.Version = first.Version
	l.beat = first.beat()
	before := l.panes
	if !l.droppedAt.IsZero() {
		before = l.cameWhileDropped(before, first.line.Panes)
		l.droppedAt = time.Time{}
	}
	l.panes = map[string]wire.Pane{}
	var changes []change
	for _, p := range first.line.Panes {
		changes = l.put(p, before, changes)
	}
	f.heard(l)
	f.mu.Unlock()
	f.Log.Info().Str("host", l.host.Name).Str("version", first.Version).Int("panes", len(first.line.Panes)).Msg("host up")
	f.tell(changes)
}

// cameWhileDropped is before with, for each of panes that is not in it and needs a
// person, a record of it UNKNOWN since the drop: the dialog or error it shows came while
// nothing was heard, and is a change (notified, dedupe keeping repeats away), as a pane
// first seen is not. Under f.mu.
func (l *link) cameWhileDropped(before map[string]wire.Pane, panes []wire.Pane) map[string]wire.Pane {
	out := maps.Clone(before)
	if out == nil {
		out = map[string]wire.Pane{}
	}
	for _, p := range panes {
		if _, known := out[p.ID]; !known && state.State(p.State).NeedsAttention() {
			was := p
			was.Host, was.State, was.Rule, was.Summary, was.Since = l.host.Name, string(state.Unknown), "", "", l.droppedAt
			out[p.ID] = was
		}
	}
	return out
}

// apply takes a line after the first, of the stream whose ctx is given. The host is
// heard: a stale one is up again. A line read as the stream was being ended (its host
// silent too long, its panes dropped) is not taken. A host whose panes come to over
// maxPanes is an error: they are held in memory.
func (f *Fleet) apply(ctx context.Context, l *link, line wire.FollowLine) error {
	f.mu.Lock()
	if ctx.Err() != nil {
		f.mu.Unlock()
		return nil
	}
	moved := l.setState(wire.HostUp, "")
	var changes []change
	for _, p := range line.Panes {
		changes = l.put(p, l.panes, changes)
	}
	for _, id := range line.Gone {
		delete(l.panes, id)
	}
	f.heard(l)
	panes := len(l.panes)
	f.mu.Unlock()
	if moved || line.Type == wire.FollowChange {
		f.tell(changes)
	}
	if panes > maxPanes {
		return fmt.Errorf("its paneherd sent over %d panes", maxPanes)
	}
	return nil
}

// change is a host's pane changing state, for Transition.
type change struct {
	before wire.Pane
	tr     wire.Transition
}

// put records a pane of l's, and notes its change of state from before's. Under f.mu.
func (l *link) put(p wire.Pane, before map[string]wire.Pane, changes []change) []change {
	p.Host = l.host.Name
	if was, ok := before[p.ID]; ok && was.State != p.State {
		changes = append(changes, change{before: was, tr: wire.Transition{PaneID: p.ID, At: p.Since,
			From: was.State, To: p.State, Rule: p.Rule, Summary: p.Summary}})
	}
	l.panes[p.ID] = p
	return changes
}

// tell hands the changes of state to Transition, then says the view changed.
func (f *Fleet) tell(changes []change) {
	if f.Transition != nil {
		for _, c := range changes {
			f.Transition(c.before, c.tr)
		}
	}
	f.changed()
}

// heard restarts l's timers: a line came. Under f.mu.
func (f *Fleet) heard(l *link) {
	if l.staleAt == nil {
		l.staleAt = time.AfterFunc(missedBeats*l.beat, func() { f.staleNow(l) })
		l.dropAt = time.AfterFunc(f.Timing.DropAfter, func() { f.dropNow(l) })
		return
	}
	l.staleAt.Reset(missedBeats * l.beat)
	l.dropAt.Reset(f.Timing.DropAfter)
}

// missedBeats: a host not heard for this many heartbeats is stale.
const missedBeats = 2

// staleNow: l's heartbeat was missed; its panes are as last heard.
func (f *Fleet) staleNow(l *link) {
	f.mu.Lock()
	moved := !l.stopped && l.host.State == wire.HostUp && l.setState(wire.HostStale, "")
	f.mu.Unlock()
	if moved {
		f.Log.Warn().Str("host", l.host.Name).Msg("host stale: heartbeat missed")
		f.changed()
	}
}

// dropNow: nothing heard from l for DropAfter: its panes go, and a stream still open
// (silent) is ended.
func (f *Fleet) dropNow(l *link) {
	f.mu.Lock()
	if l.stopped {
		f.mu.Unlock()
		return
	}
	clear(l.panes)
	l.droppedAt = time.Now()
	if l.endStream != nil {
		l.endStream(errSilent)
	}
	f.mu.Unlock()
	f.changed()
}

// lost: the stream ended with err (a dial's error, a line not the protocol's, or its end)
// and wait's error (why what wrote it ended). The host is incompatible or unreachable,
// and why; its panes stay, stale, until they are dropped.
func (f *Fleet) lost(l *link, err, waitErr error) {
	st, why := wire.HostUnreachable, explain(err, waitErr)
	var old *incompatibleError
	if errors.As(err, &old) {
		st, why = wire.HostIncompatible, old.Error()
	} else if tooOld(err, waitErr) {
		st, why = wire.HostIncompatible, noFollow
	}
	f.mu.Lock()
	moved := l.setState(st, why)
	f.mu.Unlock()
	if moved {
		f.Log.Warn().Str("host", l.host.Name).Str("state", st).Str("why", why).Msg("host lost")
		f.changed()
	}
}
