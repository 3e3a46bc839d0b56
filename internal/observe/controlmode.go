package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/controlmode"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Control observer timings (and controlmode_panes.go). Every reconcile the whole server is
// listed and captured, through the command client, so STALLED, vanished panes and
// anything a notification missed are still seen.
const (
	reconcile = 5 * time.Second
	// afterEvent: tmux runs hooks and sends structural notifications before it has
	// finished the change (a dying pane is not yet marked dead when pane-died runs), so
	// a look follows this soon after the one the event caused.
	afterEvent = 250 * time.Millisecond
	// settleAttach: a new output client misses what a pane prints while it attaches, so
	// the next full look comes this soon after.
	settleAttach = time.Second
)

// ControlMode watches through tmux control mode: one client that takes commands (no
// output, so a flooding pane never delays a reply), and one client per session that
// reports what panes print (controlmode_output.go; a pane that keeps printing the same
// shapes is captured only when it prints a new one or stops, shapes.go; one that floods or
// streams is paused and captured on a timer until it is still again, controlmode_panes.go).
// Capturing and listing go through the command client's stdin: no fork per look.
type ControlMode struct {
	Server tmux.Server
	Now    func() time.Time
	Log    zerolog.Logger // the zero value logs nothing

	cmdMu     sync.Mutex // cmd is replaced when its session goes, and used by Command
	cmd       *controlmode.Client
	sessions  map[string]*outputClient // session id -> its output client
	attachErr map[string]string        // session id -> why its output client did not attach
	detaching sync.WaitGroup           // output clients of gone sessions, detaching

	mu        sync.Mutex
	watch     map[string]*paneWatch
	pauses    map[pauseKey]pauseState
	structure bool // windows, panes or sessions changed: list again
	wake      chan struct{}
	working   map[string]bool // panes whose agents are at work (SetWorking)

	counts *controlmode.Counts // what its clients sent and were sent (Counts)
	fronts foregrounds         // only the looking goroutine (Next) uses it
	// Shell, if set before the first Next, says whether a program is a shell. Only a
	// shell in front starts commands that may print nothing, so only a pane with a shell
	// in front (or not read yet) has its foreground read on the clock after it prints;
	// an agent's CLI, or a command, in front is read at each capture, and its end prints
	// the shell's prompt. (An animating agent printed for ever, and its /proc reads were
	// a fifth of the daemon's work in the bench.) Nil: every pane is read on the clock.
	Shell    func(name string) bool
	started  bool
	lastFull time.Time
	followUp time.Time // a look soon after a structural one (see afterEvent)
	panes    []tmux.Pane
	serverID string
}

// StartControlMode attaches the command client. It fails when control mode does not work
// here; the caller then polls.
func StartControlMode(s tmux.Server) (*ControlMode, error) {
	o := &ControlMode{Server: s, Now: time.Now, sessions: map[string]*outputClient{}, attachErr: map[string]string{},
		watch: map[string]*paneWatch{}, pauses: map[pauseKey]pauseState{},
		wake: make(chan struct{}, 1), counts: controlmode.NewCounts()}
	if err := o.attachCommand(context.Background()); err != nil {
		return nil, err
	}
	return o, nil
}

// Counts is what the observer's control clients have sent tmux and been sent, so far.
func (o *ControlMode) Counts() *controlmode.Counts { return o.counts }

// attachCommand attaches the command client to any session.
func (o *ControlMode) attachCommand(ctx context.Context) error {
	out, err := o.Server.Run(ctx, nil, "list-sessions", "-F", "#{session_id}")
	if err != nil {
		return err
	}
	ids := strings.Fields(out)
	if len(ids) == 0 {
		return fmt.Errorf("control: %w", tmux.ErrNoSessions)
	}
	c, err := controlmode.AttachCounting(o.Server, ids[0], "ignore-size,no-output", o.event(), o.counts)
	if err != nil {
		return err
	}
	o.cmdMu.Lock()
	o.cmd = c
	o.cmdMu.Unlock()
	return nil
}

// Wake makes Next look at once (a hook event).
func (o *ControlMode) Wake() {
	o.mu.Lock()
	o.structure = true
	o.mu.Unlock()
	o.poke()
}

func (o *ControlMode) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// SetTick does nothing: control mode looks when panes print, and reconciles on its own.
func (o *ControlMode) SetTick(time.Duration) {}

// Close detaches every client and waits until they have gone.
func (o *ControlMode) Close() {
	for _, c := range o.sessions {
		c.Close()
	}
	if c := o.commandClient(); c != nil {
		c.Close()
	}
	o.detaching.Wait()
	o.fronts.close()
}

// event handles the notifications both kinds of client get: those that change what
// panes there are. It runs on the client's reading goroutine and never blocks.
func (o *ControlMode) event() func(controlmode.Event) {
	return func(e controlmode.Event) {
		switch e.Kind {
		case "window-add", "window-close", "unlinked-window-add", "unlinked-window-close",
			"sessions-changed", "layout-change", "window-pane-changed", "exit":
			o.mu.Lock()
			o.structure = true
			o.mu.Unlock()
			o.poke()
		}
	}
}

// SetWorking takes the panes whose agents are at work: what such a pane prints pauses it,
// and it is captured on the clock until its screen holds still (WorkAware).
func (o *ControlMode) SetWorking(panes map[string]bool) {
	o.mu.Lock()
	o.working = panes
	o.mu.Unlock()
}

// Next waits until a pane has printed something new, a paused one is to be looked at
// again, one whose repeated output was skipped has stopped, the watcher is due, a pane's
// foreground changed, or it is time to reconcile, then captures what needs it.
func (o *ControlMode) Next(ctx context.Context, due Due) (Frame, error) {
	for {
		if o.started {
			if err := o.waitFor(ctx, due); err != nil {
				return Frame{}, err
			}
		}
		o.started = true
		now := o.Now()
		o.readFronts(now)
		structural := o.takeStructure()
		full := structural || now.Sub(o.lastFull) >= reconcile || (!o.followUp.IsZero() && !now.Before(o.followUp))
		followUp := o.followUp
		o.followUp = time.Time{}
		if structural {
			o.followUp = now.Add(afterEvent)
		}
		if full {
			if err := o.list(ctx); err != nil {
				return Frame{}, err
			}
		}
		l := o.toCapture(now, due, full)
		if !full && len(l.panes) == 0 && len(l.unchanged) == 0 {
			// Woken to read foregrounds, and none changed; for output that only
			// repeated itself; or at a stop look that output since put off: nothing to
			// show yet (movement goes with the next frame).
			o.followUp = followUp // no look was made
			continue
		}
		screens, err := o.capture(ctx, l)
		if err != nil {
			o.stillPaused(l)
			o.mu.Lock()
			o.lostCaptures(l.panes, nil)
			o.mu.Unlock()
			return Frame{}, err
		}
		moved := o.sawScreens(l.panes, screens)
		o.printedSinceLook(l.printed)
		panes, fronts := o.stampFronts(screens, full)
		return Frame{At: o.Now(), Server: o.serverID, Panes: panes, Screens: screens, Foreground: fronts, Moved: moved,
			Printed: l.printed, Unchanged: l.unchanged}, nil
	}
}

func (o *ControlMode) takeStructure() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.structure
	o.structure = false
	return s
}

// waitFor sleeps until the next reason to look.
func (o *ControlMode) waitFor(ctx context.Context, due Due) error {
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
		case <-o.commandClient().Done():
			t.Stop()
			if err := o.attachCommand(ctx); err != nil {
				o.holdOff(ctx, err)
				return err
			}
		case <-o.wake:
			t.Stop()
		case <-t.C:
			return nil
		}
	}
}

// list reads the panes and the server's identity, and keeps one output client per session.
func (o *ControlMode) list(ctx context.Context) error {
	listCmd, parse := tmux.ListCommand()
	replies, err := o.run(ctx, [][]string{listCmd, {"display-message", "-p", tmux.ServerFormat},
		{"list-sessions", "-F", "#{session_id}"}})
	if err != nil {
		return err
	}
	var panes []tmux.Pane // tmux 3.3a's list-panes -a says "no current target" with no sessions
	if !replies[0].Failed {
		if panes, err = parse(replies[0].Output); err != nil {
			return err
		}
	}
	o.serverID = strings.TrimSpace(replies[1].Output)
	o.mu.Lock()
	prev := o.panes
	o.panes = panes
	o.forgetGone(prev)
	o.mu.Unlock()
	o.fronts.forget(panes)
	o.lastFull = o.Now()
	if o.keepSessions(ctx, strings.Fields(replies[2].Output)) {
		// Look at everything again soon: what printed while a client attached, or a
		// session whose client could not attach.
		o.lastFull = o.Now().Add(settleAttach - reconcile)
	}
	return nil
}

// keepSessions attaches output clients to new sessions and drops those of gone ones; it
// reports whether it attached any or failed to.
func (o *ControlMode) keepSessions(ctx context.Context, ids []string) bool {
	changed := false
	live := map[string]bool{}
	for _, id := range ids {
		live[id] = true
		if oc, ok := o.sessions[id]; ok {
			if oc.alive() {
				continue
			}
			o.forget(oc)
		}
		changed = true
		oc, err := o.attachOutput(ctx, id)
		if err != nil {
			// Retried at the next look, a second from now: said once, not every second.
			if msg := err.Error(); o.attachErr[id] != msg {
				o.Log.Warn().Err(err).Str("session", id).Msg("output client not attached; its panes are captured every 5 s meanwhile")
				o.attachErr[id] = msg
			}
			continue
		}
		delete(o.attachErr, id)
		o.sessions[id] = oc
	}
	for id := range o.attachErr {
		if !live[id] {
			delete(o.attachErr, id)
		}
	}
	for id, oc := range o.sessions {
		if !live[id] {
			o.detaching.Go(func() { oc.Close() })
			o.forget(oc)
			delete(o.sessions, id)
		}
	}
	return changed
}

// capture sends a look's continues and captures through the command client; a pane
// that vanished is left out.
func (o *ControlMode) capture(ctx context.Context, l look) (map[string]string, error) {
	screens := make(map[string]string, len(l.panes))
	if len(l.panes) == 0 {
		return screens, nil
	}
	cmds := append(l.continues, make([][]string, len(l.panes))...)
	for i, id := range l.panes {
		cmds[len(l.continues)+i] = []string{"capture-pane", "-p", "-t", id}
	}
	replies, err := o.run(ctx, cmds)
	if err != nil {
		return nil, err
	}
	// A continue that failed (its client has just gone) changes nothing here.
	for i, r := range replies[len(l.continues):] {
		if !r.Failed {
			screens[l.panes[i]] = r.Output
		}
	}
	return screens, nil
}

// holdOff waits a while after the command client could not attach again, unless the
// server has gone (the watch ends) or a hook says something changed: with no session to
// attach to (exit-empty off), asking again at once would fork tmux in a tight loop.
func (o *ControlMode) holdOff(ctx context.Context, err error) {
	if errors.Is(err, tmux.ErrNoServer) {
		return
	}
	t := time.NewTimer(reattachWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-o.wake:
	case <-t.C:
	}
}

// reattachWait is how long holdOff waits.
const reattachWait = time.Second

// Command runs one tmux command through the command client, without a process: the
// daemon's other parts (status line, notifications, delivery) reach tmux this way, as
// the tmux.Commander of their Server. It never re-attaches (that is the looking
// goroutine's business): with the client gone it says tmux.ErrViaClosed.
func (o *ControlMode) Command(ctx context.Context, args ...string) (string, bool, error) {
	replies, err := o.commandClient().Run(ctx, [][]string{args})
	if errors.Is(err, controlmode.ErrClosed) {
		return "", false, tmux.ErrViaClosed // nothing sent: a tmux process may do it
	}
	if err != nil {
		return "", false, fmt.Errorf("tmux %s: %w", args[0], err) // it may have run
	}
	return replies[0].Output, replies[0].Failed, nil
}

func (o *ControlMode) commandClient() *controlmode.Client {
	o.cmdMu.Lock()
	defer o.cmdMu.Unlock()
	return o.cmd
}

// run sends commands through the command client, re-attaching it once if it has gone
// (its session was destroyed); with no server left, it says so as tmux.ErrNoServer.
func (o *ControlMode) run(ctx context.Context, cmds [][]string) ([]controlmode.Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, minLookTimeout)
	defer cancel()
	replies, err := o.commandClient().Run(ctx, cmds)
	if !errors.Is(err, controlmode.ErrClosed) && !errors.Is(err, controlmode.ErrLost) {
		return replies, err
	}
	// Lists, captures and continues may run twice: attach again and repeat them.
	if err := o.attachCommand(ctx); err != nil {
		o.holdOff(ctx, err)
		return nil, err
	}
	return o.commandClient().Run(ctx, cmds)
}
