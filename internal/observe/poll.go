// Package observe is how the daemon looks at tmux: it produces frames (every pane, and
// the screens worth reading now) for the watcher. Two observers: Poller lists and captures
// every pane each tick; ControlMode is told by tmux control mode which panes print, and
// captures only those. Both batch: one tmux invocation or control-mode round trip per look
// (docs/performance.md#what-tmux-costs).
package observe

import (
	"context"
	"time"

	"github.com/paneherd/paneherd/internal/live"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Frame is one look at the server: every pane, and the screens captured this time.
type Frame struct {
	At     time.Time
	Server string // the server process the frame is from (tmux.Look.Server)
	Panes  []tmux.Pane
	// Screens holds the panes captured for this frame, by pane id. An observer that
	// knows a pane did not change may leave it out; its state then holds.
	Screens map[string]string
	// Foreground is who was in front of each captured pane's terminal as the frame was
	// made, read from /proc (foreground.go); a pane left out could not be read. Panes
	// holds each one's Command as read then, not as tmux last listed it.
	Foreground map[string]proc.Foreground
	// Moved holds panes that printed since the last frame output that was not captured
	// for it, because it repeated what they had printed before (an animation: the control
	// observer's shapes), and when the last of it came. Their screens moved, in a way
	// read before.
	Moved map[string]time.Time
	// Printed holds the captured panes whose output was relayed since their last look
	// (not paused) and that printed nothing between the look and its capture, and when
	// their last output came: what the capture shows was on screen from then on.
	Printed map[string]time.Time
	// Unchanged holds panes the watcher said were due that printed nothing since their
	// last capture, and were not captured again: their screens are the ones last
	// captured, to be read again at At (a READY settling is decided at its time, with no
	// round trip to tmux).
	Unchanged map[string]bool
}

// Due says which panes' states change with no new output, and when (a READY screen
// settling): the observer looks at each of them by its time.
type Due map[string]time.Time

// Add asks for a look at the pane at, or earlier if it is due earlier already.
func (d Due) Add(paneID string, at time.Time) {
	if was, ok := d[paneID]; !ok || at.Before(was) {
		d[paneID] = at
	}
}

// Earliest is the first of the times; zero when there is none.
func (d Due) Earliest() time.Time {
	var first time.Time
	for _, at := range d {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	return first
}

// WorkAware is an observer told which panes' agents are at work: it may watch them
// otherwise than the rest (the control observer captures them on its clock instead of
// relaying what they print, as it does a stream).
type WorkAware interface {
	// SetWorking replaces the set of panes at work; called before each Next.
	SetWorking(panes map[string]bool)
}

// Observer produces frames. The polling observer looks every tick; the control-mode
// observer captures only panes whose output moved, and everything at each reconcile.
type Observer interface {
	// Next blocks until there is something to look at, or until a pane is due (a state
	// that changes with time alone, like a READY screen settling). It returns
	// tmux.ErrNoServer when the server has gone, which ends the watch.
	Next(ctx context.Context, due Due) (Frame, error)
}

// Poller lists every pane and captures every live one, once per tick, in one tmux
// invocation: never one fork per pane (docs/performance.md#what-tmux-costs).
type Poller struct {
	Server tmux.Server
	Now    func() time.Time
	tick   live.Value[time.Duration] // options can change it while the poller runs

	wake     chan struct{}
	started  bool
	followUp bool        // the last look was woken: look again soon (afterEvent)
	live     []string    // the live panes of the last look, captured with the next list
	panes    []tmux.Pane // the last look's, as stamped with their foregrounds
	fronts   foregrounds // who is in front of each pane's terminal (foreground.go)
}

// minLookTimeout bounds one look at the server; a short tick does not shorten it below this.
const minLookTimeout = 5 * time.Second

// NewPoller returns a poller that looks every tick.
func NewPoller(s tmux.Server, tick time.Duration) *Poller {
	p := &Poller{Server: s, Now: time.Now, wake: make(chan struct{}, 1)}
	p.SetTick(tick)
	return p
}

// SetTick changes how often the poller looks; safe from any goroutine.
func (p *Poller) SetTick(d time.Duration) { p.tick.Store(d) }

// Close closes the /proc files the poller reads between looks. Call it once Next has
// returned for the last time.
func (p *Poller) Close() { p.fronts.close() }

// Tick is how often the poller looks.
func (p *Poller) Tick() time.Duration { return p.tick.Load() }

// Wake makes the next Next return at once instead of at the next tick; hook events use
// it so a new or closed pane shows without waiting.
func (p *Poller) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Next waits for the tick, a wake-up, the due time or a pane's foreground changing,
// then lists and captures.
func (p *Poller) Next(ctx context.Context, due Due) (Frame, error) {
	if p.started {
		if err := p.wait(ctx, due); err != nil {
			return Frame{}, err
		}
	}
	p.started = true
	return p.look(ctx)
}

// wait sleeps until the next look. Meanwhile it reads every pollForegrounds who is in
// front of each live pane's terminal (foreground.go: one /proc read a pane, no tmux): a
// command started or ended at a prompt is looked at then, not at the next tick.
func (p *Poller) wait(ctx context.Context, due Due) error {
	wait := p.Tick()
	if at := due.Earliest(); !at.IsZero() {
		wait = min(wait, max(time.Until(at), 0))
	}
	if p.followUp {
		wait = min(wait, afterEvent)
	}
	deadline := time.Now().Add(wait)
	t := time.NewTimer(min(wait, pollForegrounds))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.wake:
			p.followUp = true
			return nil
		case <-t.C:
		}
		left := time.Until(deadline)
		if left <= 0 || p.frontsMoved() {
			p.followUp = false
			return nil
		}
		t.Reset(min(left, pollForegrounds))
	}
}

// frontsMoved reads the foreground of every live pane of the last look, and reports
// whether any pane's changed.
func (p *Poller) frontsMoved() bool {
	moved := false
	for _, pn := range p.panes {
		if _, m := p.fronts.read(pn, false); m {
			moved = true
		}
	}
	return moved
}

// look lists the panes and captures those that were live at the last look in one call;
// a pane that has appeared since costs one more call, once.
func (p *Poller) look(ctx context.Context) (Frame, error) {
	// A wedged server (a run-shell without -b holds it) must not hang the daemon.
	ctx, cancel := context.WithTimeout(ctx, max(5*p.Tick(), minLookTimeout))
	defer cancel()
	look, err := p.Server.Observe(ctx, p.live)
	if err != nil {
		return Frame{}, err
	}
	p.live = p.live[:0]
	var fresh []string
	for _, pn := range look.Panes {
		if pn.Dead {
			continue
		}
		p.live = append(p.live, pn.ID)
		if _, ok := look.Screens[pn.ID]; !ok {
			fresh = append(fresh, pn.ID)
		}
	}
	if len(fresh) > 0 {
		more, err := p.Server.Capture(ctx, fresh, false)
		if err != nil {
			return Frame{}, err
		}
		for id, sc := range more {
			look.Screens[id] = sc
		}
	}
	p.fronts.forget(look.Panes)
	panes, fronts := p.fronts.stamp(look.Panes, look.Screens, true)
	p.panes = panes
	return Frame{At: p.Now(), Server: look.Server, Panes: panes, Screens: look.Screens, Foreground: fronts}, nil
}
