package watcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/control"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Control observer timings. A pane is captured soon after its output starts (debounce:
// a burst of output is one change), at most every minInterval while it keeps printing,
// and again when the watcher is due (a READY screen settling). Every reconcile the whole
// server is listed and captured, through the control client, so STALLED, vanished panes
// and anything a notification missed are still seen.
const (
	debounce    = 25 * time.Millisecond
	minInterval = 200 * time.Millisecond
	reconcile   = 5 * time.Second
	// afterEvent: tmux runs hooks and sends structural notifications before it has
	// finished the change (a dying pane is not yet marked dead when pane-died runs), so
	// a look follows this soon after the one the event caused.
	afterEvent = 250 * time.Millisecond
	// settleAttach: a new output client misses what a pane prints while it attaches, so
	// the next full look comes this soon after.
	settleAttach = time.Second
)

// ControlObserver watches through tmux control mode: one client that takes commands (no
// output, so a flooding pane never delays a reply), and one client per session that
// reports which panes print (pause-after, so a slow reader is paused, not dropped).
// Capturing and listing go through the command client's stdin: no fork per look.
type ControlObserver struct {
	Server tmux.Server
	Now    func() time.Time

	cmd      *control.Client
	sessions map[string]*control.Client // session id -> its output client

	mu        sync.Mutex
	dirty     map[string]time.Time // pane -> first output since its last capture
	lastCap   map[string]time.Time
	structure bool // windows, panes or sessions changed: list again
	wake      chan struct{}

	started  bool
	lastFull time.Time
	followUp time.Time // a look soon after a structural one (see afterEvent)
	panes    []tmux.Pane
	serverID string
}

// StartControl attaches the command client. It fails when control mode does not work
// here; the caller then polls.
func StartControl(s tmux.Server) (*ControlObserver, error) {
	o := &ControlObserver{Server: s, Now: time.Now, sessions: map[string]*control.Client{},
		dirty: map[string]time.Time{}, lastCap: map[string]time.Time{},
		wake: make(chan struct{}, 1)}
	if err := o.attachCommand(context.Background()); err != nil {
		return nil, err
	}
	return o, nil
}

// attachCommand attaches the command client to any session.
func (o *ControlObserver) attachCommand(ctx context.Context) error {
	out, err := o.Server.Run(ctx, nil, "list-sessions", "-F", "#{session_id}")
	if err != nil {
		return err
	}
	ids := strings.Fields(out)
	if len(ids) == 0 {
		return fmt.Errorf("control: %w", tmux.ErrNoSessions)
	}
	c, err := control.Attach(o.Server, ids[0], "ignore-size,no-output", o.event(nil))
	if err != nil {
		return err
	}
	o.cmd = c
	return nil
}

// Wake makes Next look at once (a hook event).
func (o *ControlObserver) Wake() {
	o.mu.Lock()
	o.structure = true
	o.mu.Unlock()
	o.poke()
}

func (o *ControlObserver) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// SetTick does nothing: control mode looks when panes print, and reconciles on its own.
func (o *ControlObserver) SetTick(time.Duration) {}

// Close detaches every client.
func (o *ControlObserver) Close() {
	for _, c := range o.sessions {
		c.Close()
	}
	if o.cmd != nil {
		o.cmd.Close()
	}
}

// event handles a client's notifications; client is the output client (nil for the
// command client). It runs on the client's reading goroutine and never blocks.
func (o *ControlObserver) event(client func() *control.Client) func(control.Event) {
	return func(e control.Event) {
		switch e.Kind {
		case "output", "pause":
			if len(e.Args) == 0 {
				return
			}
			o.output(e.Args[0])
			// Muting a printing pane (refresh-client -A %p:off, then on) would spare tmux
			// and us the rest of a stream, but tmux 3.3a segfaults on it under load
			// (measured; the server dies): never do that. Only pauses are answered.
			if e.Kind == "pause" && client != nil {
				// We want to know that the pane prints, not what: let it go on at once.
				if c := client(); c != nil {
					go c.Run(context.Background(), [][]string{{"refresh-client", "-A", e.Args[0] + ":continue"}})
				}
			}
		case "window-add", "window-close", "unlinked-window-add", "unlinked-window-close",
			"sessions-changed", "layout-change", "window-pane-changed", "exit":
			o.mu.Lock()
			o.structure = true
			o.mu.Unlock()
		default:
			return
		}
		o.poke()
	}
}

func (o *ControlObserver) output(pane string) {
	now := o.Now()
	o.mu.Lock()
	if _, ok := o.dirty[pane]; !ok {
		o.dirty[pane] = now
	}
	o.mu.Unlock()
}

// Next waits until a pane has printed, the watcher is due, or it is time to reconcile,
// then captures what needs it.
func (o *ControlObserver) Next(ctx context.Context, due time.Time) (Frame, error) {
	if o.started {
		if err := o.waitFor(ctx, due); err != nil {
			return Frame{}, err
		}
	}
	o.started = true
	now := o.Now()
	structural := o.takeStructure()
	full := structural || now.Sub(o.lastFull) >= reconcile || (!o.followUp.IsZero() && !now.Before(o.followUp))
	o.followUp = time.Time{}
	if structural {
		o.followUp = now.Add(afterEvent)
	}
	if full {
		if err := o.list(ctx); err != nil {
			return Frame{}, err
		}
	}
	ids := o.toCapture(now, due, full)
	screens, err := o.capture(ctx, ids)
	if err != nil {
		return Frame{}, err
	}
	return Frame{At: o.Now(), Server: o.serverID, Panes: o.panes, Screens: screens}, nil
}

func (o *ControlObserver) takeStructure() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.structure
	o.structure = false
	return s
}

// waitFor sleeps until the next reason to look.
func (o *ControlObserver) waitFor(ctx context.Context, due time.Time) error {
	for {
		next := o.nextLook(due)
		wait := max(time.Until(next), 0)
		if wait == 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-o.cmd.Done():
			t.Stop()
			if err := o.attachCommand(ctx); err != nil {
				return err
			}
		case <-o.wake:
			t.Stop()
		case <-t.C:
			return nil
		}
	}
}

// nextLook is when the next look is due: a structure change now; a printing pane after
// its debounce and rate limit; the watcher's due time; the reconcile.
func (o *ControlObserver) nextLook(due time.Time) time.Time {
	next := o.lastFull.Add(reconcile)
	if !due.IsZero() && due.Before(next) {
		next = due
	}
	if !o.followUp.IsZero() && o.followUp.Before(next) {
		next = o.followUp
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.structure {
		return o.Now()
	}
	for pane, at := range o.dirty {
		ready := at.Add(debounce)
		if limit := o.lastCap[pane].Add(minInterval); limit.After(ready) {
			ready = limit
		}
		if ready.Before(next) {
			next = ready
		}
	}
	return next
}

// toCapture picks the panes to capture now: all on a full look, or when the watcher is
// due (a screen settling: it does not say which, and captures through the control client
// cost no fork); else those that printed and are past their debounce and rate limit.
func (o *ControlObserver) toCapture(now, due time.Time, full bool) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	all := full || (!due.IsZero() && !now.Before(due))
	var ids []string
	for _, p := range o.panes {
		if p.Dead {
			continue
		}
		at, dirty := o.dirty[p.ID]
		ready := dirty && now.Sub(at) >= debounce && now.Sub(o.lastCap[p.ID]) >= minInterval
		if all || ready {
			ids = append(ids, p.ID)
			delete(o.dirty, p.ID)
			o.lastCap[p.ID] = now
		}
	}
	return ids
}

// list reads the panes and the server's identity, and keeps one output client per session.
func (o *ControlObserver) list(ctx context.Context) error {
	listCmd, parse := tmux.ListCommand()
	replies, err := o.run(ctx, [][]string{listCmd, {"display-message", "-p", "#{pid}:#{start_time}"},
		{"list-sessions", "-F", "#{session_id}"}})
	if err != nil {
		return err
	}
	if replies[0].Failed {
		o.panes = nil // tmux 3.3a's list-panes -a says "no current target" with no sessions
	} else if o.panes, err = parse(replies[0].Output); err != nil {
		return err
	}
	o.serverID = strings.TrimSpace(replies[1].Output)
	if o.keepSessions(strings.Fields(replies[2].Output)) {
		o.lastFull = o.Now().Add(settleAttach - reconcile)
	} else {
		o.lastFull = o.Now()
	}
	return nil
}

// keepSessions attaches output clients to new sessions and drops those of gone ones; it
// reports whether it attached any.
func (o *ControlObserver) keepSessions(ids []string) bool {
	attached := false
	live := map[string]bool{}
	for _, id := range ids {
		live[id] = true
		if c, ok := o.sessions[id]; ok {
			select {
			case <-c.Done():
			default:
				continue
			}
		}
		var c *control.Client
		c, err := control.Attach(o.Server, id, "ignore-size,pause-after=2", o.event(func() *control.Client { return c }))
		if err == nil {
			o.sessions[id] = c
			attached = true
		}
	}
	for id, c := range o.sessions {
		if !live[id] {
			go c.Close()
			delete(o.sessions, id)
		}
	}
	return attached
}

// capture captures panes through the command client; a pane that vanished is left out.
func (o *ControlObserver) capture(ctx context.Context, ids []string) (map[string]string, error) {
	screens := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return screens, nil
	}
	cmds := make([][]string, len(ids))
	for i, id := range ids {
		cmds[i] = []string{"capture-pane", "-p", "-t", id}
	}
	replies, err := o.run(ctx, cmds)
	if err != nil {
		return nil, err
	}
	for i, r := range replies {
		if !r.Failed {
			screens[ids[i]] = r.Output
		}
	}
	return screens, nil
}

// run sends commands through the command client, re-attaching it once if it has gone
// (its session was destroyed); with no server left, it says so as tmux.ErrNoServer.
func (o *ControlObserver) run(ctx context.Context, cmds [][]string) ([]control.Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, minLookTimeout)
	defer cancel()
	replies, err := o.cmd.Run(ctx, cmds)
	if !errors.Is(err, control.ErrClosed) {
		return replies, err
	}
	if err := o.attachCommand(ctx); err != nil {
		return nil, err
	}
	return o.cmd.Run(ctx, cmds)
}
