package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// The floors: the cheapest watchers of a fleet through tmux that could still show a
// change within the latency target, measured in the same run as paneherd (issue 19
// asked whether ten times less CPU than the peer can be had at p95 <= 300 ms). Each does
// nothing with what tmux hands it but read it and drop it: no parsing, no reading of a
// screen, no state, no store. What they cost is tmux's work and the reading alone, so
// no watcher built the same way can cost less.
//
//   - floor-relay: one control client per session, as paneherd's control observer
//     attaches them, taking every pane's output as it comes; a streaming pane (which it
//     is told of, where a real watcher must find out) is paused for its client and
//     captured every floorPollEvery instead. (Paused, not off: with every client off,
//     tmux stops reading the pane, and the program in it stops.)
//   - floor-poll: one command client capturing every pane every floorPollEvery.
//   - floor-oracle: floor-relay, told for free by the players' own logs (inotify) when
//     each pane starts and stops being busy. A busy pane is paused, so none of its
//     spinner frames is relayed, and captured every floorPollEvery (what it would take
//     to see it stop, had it not been told); once it stops, it is continued and
//     captured once, for the screen it drew while paused.
//
// What they do not check: tmux's answers after the setup (a pause or continue it
// refused), and a pane tmux pauses itself for a client 2 s behind (pause-after), which
// nothing continues. Each would make a floor read cheaper than it is; a floor drops what
// it reads at once, so only a process starved for seconds falls that far behind.
const (
	floorRelay  = "floor-relay"
	floorPoll   = "floor-poll"
	floorOracle = "floor-oracle"
)

// floorKinds are the floors -floor adds to the observers.
var floorKinds = []string{floorRelay, floorPoll, floorOracle}

// floorPollEvery: a change then waits 125 ms on average, 250 ms at worst, before the
// capture that sees it: the latency target's budget, with 50 ms for everything else.
const floorPollEvery = 250 * time.Millisecond

// floorCommand runs the floor watcher kind against the world's server, as a child
// process of the bench binary, so that it is measured like the others: its process and
// the tmux clients it starts.
func (w *world) floorCommand(ctx context.Context, self, kind string) *exec.Cmd {
	args := []string{"floor", kind, w.server.Socket}
	for id, log := range w.logs {
		if slices.Contains(w.streams, id) {
			args = append(args, id)
		} else {
			args = append(args, id+"="+log)
		}
	}
	c := exec.CommandContext(ctx, self, args...)
	c.Env = w.env
	c.Stderr = os.Stderr
	return c
}

// floorRun is one floor watcher.
type floorRun struct {
	socket  string
	panes   []floorPane
	streams []string
	logs    map[string]string // player log -> its pane
	errs    chan error        // a failure of any of its goroutines ends it

	mu      sync.Mutex
	polled  map[string]bool // captured every floorPollEvery
	once    []string        // captured at the next tick only
	clients []*floorClient
	outputs map[string]*floorClient // session -> its output client
}

type floorPane struct{ id, session string }

// floor is the floor subcommand: floor KIND SOCKET PANE=PLAYER-LOG|STREAMING-PANE...; it
// runs until SIGTERM, or fails as soon as tmux refuses it anything.
func floor(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("floor %s SOCKET PANE=PLAYER-LOG|STREAMING-PANE...", strings.Join(floorKinds, "|"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	f := &floorRun{socket: args[1], logs: map[string]string{}, errs: make(chan error, 4), polled: map[string]bool{}}
	defer f.close()
	for _, a := range args[2:] {
		if id, log, ok := strings.Cut(a, "="); ok {
			f.logs[log] = id
		} else {
			f.streams = append(f.streams, a)
		}
	}
	var err error
	if f.panes, err = floorPanes(ctx, f.socket); err != nil {
		return err
	}
	switch args[0] {
	case floorRelay:
		err = f.relay(ctx)
	case floorOracle:
		if err = f.relay(ctx); err == nil {
			err = f.followPlayers(ctx)
		}
	case floorPoll:
		for _, p := range f.panes {
			f.polled[p.id] = true
		}
	default:
		return fmt.Errorf("floor: unknown kind %q", args[0])
	}
	if err == nil {
		err = f.captureEvery(ctx)
	}
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-f.errs:
		return err
	}
}

func floorPanes(ctx context.Context, socket string) ([]floorPane, error) {
	out, err := exec.CommandContext(ctx, "tmux", tmux.Server{Socket: socket}.Args("list-panes", "-a", "-F", "#{pane_id}\t#{session_name}")...).Output()
	if err != nil {
		return nil, fmt.Errorf("list-panes: %w", err)
	}
	var panes []floorPane
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, session, ok := strings.Cut(line, "\t"); ok {
			panes = append(panes, floorPane{id, session})
		}
	}
	if len(panes) == 0 {
		return nil, fmt.Errorf("list-panes: no panes")
	}
	return panes, nil
}

// relay attaches an output client to each session, with its streams paused and polled.
func (f *floorRun) relay(ctx context.Context) error {
	setup := map[string][]string{} // session -> its commands
	var sessions []string
	for _, p := range f.panes {
		if _, ok := setup[p.session]; !ok {
			sessions = append(sessions, p.session)
			setup[p.session] = nil
		}
		if slices.Contains(f.streams, p.id) {
			// One pane per -A: tmux reads "%1:pause,%2:pause" as one pane and a
			// state it does not know, and says nothing.
			setup[p.session] = append(setup[p.session], "refresh-client -A '"+p.id+":pause'")
			f.polled[p.id] = true
		}
	}
	f.outputs = map[string]*floorClient{}
	for _, s := range sessions {
		c, err := f.attach(ctx, s, "ignore-size,pause-after=2", setup[s])
		if err != nil {
			return err
		}
		f.outputs[s] = c
	}
	return nil
}

// captureEvery captures the polled panes, and those to capture once, every
// floorPollEvery through one command client.
func (f *floorRun) captureEvery(ctx context.Context) error {
	c, err := f.attach(ctx, f.panes[0].session, "ignore-size,no-output", nil)
	if err != nil {
		return err
	}
	go func() {
		tick := time.NewTicker(floorPollEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if batch := f.toCapture(); batch != "" {
				if _, err := io.WriteString(c.in, batch); err != nil {
					f.fail(fmt.Errorf("capture: %w", err))
					return
				}
			}
		}
	}()
	return nil
}

// toCapture is this tick's capture commands.
func (f *floorRun) toCapture() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for id := range f.polled {
		fmt.Fprintf(&b, "capture-pane -p -t %s\n", id)
	}
	for _, id := range f.once {
		if !f.polled[id] {
			fmt.Fprintf(&b, "capture-pane -p -t %s\n", id)
		}
	}
	f.once = f.once[:0]
	return b.String()
}

func (f *floorRun) fail(err error) {
	select {
	case f.errs <- err:
	default:
	}
}

// close ends every client and waits for it: none must run on into the next baseline.
func (f *floorRun) close() {
	for _, c := range f.clients {
		c.in.Close()
		c.cmd.Process.Kill()
		<-c.done
	}
}
