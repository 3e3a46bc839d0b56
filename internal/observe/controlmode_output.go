package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/internal/controlmode"
)

// Output clients and pausing. An output client is told every byte every pane of its
// session prints, and each byte costs three processes work (the server encodes it, the
// tmux client relays it, the daemon reads it). The daemon needs to know that a pane has
// started printing, and whether what it prints is new (shapes.go): a spinner's redraw is
// a few dozen bytes, cheaper to relay than to capture. A pane that floods, or keeps
// printing new things, is paused for that client (refresh-client -A %p:pause; tmux then
// drops its output for this client only, and keeps reading the pane), captured on a
// timer while it keeps changing, and continued once it is still (controlmode_panes.go).
//
// Never turn a pane "off" instead: with every control client off, tmux stops reading the
// pane, and tmux 3.3a segfaulted on off/on under load (measured).

// outputClient is one session's output client and the name the command client
// addresses it by (refresh-client -t NAME).
type outputClient struct {
	*controlmode.Client
	name string
}

// pauseState is where a pane stands for one output client; a pane not in the map is live.
type pauseState int

const (
	pausing pauseState = iota + 1 // pause sent, tmux has not answered
	paused                        // tmux has paused it: nothing more comes until continued
)

type pauseKey struct {
	pane   string
	client *outputClient
}

// alive: the client still runs (it has not exited or been closed).
func (oc *outputClient) alive() bool {
	select {
	case <-oc.Done():
		return false
	default:
		return true
	}
}

// attachOutput attaches a session's output client and learns its name.
func (o *ControlMode) attachOutput(ctx context.Context, session string) (*outputClient, error) {
	oc := &outputClient{}
	c, err := controlmode.AttachCounting(o.Server, session, "ignore-size,pause-after=2", o.outputEvent(oc), o.counts)
	if err != nil {
		return nil, err
	}
	oc.Client = c
	ctx, cancel := context.WithTimeout(ctx, minLookTimeout)
	defer cancel()
	name, err := clientName(ctx, c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("control: name of the output client of %s: %w", session, err)
	}
	o.mu.Lock() // its events read the name
	oc.name = name
	o.mu.Unlock()
	return oc, nil
}

// clientName asks a control client its own name. Only once it is attached (Attach waits
// for that): before, tmux runs its commands for "the best client", which may be another.
func clientName(ctx context.Context, c *controlmode.Client) (string, error) {
	replies, err := c.Run(ctx, [][]string{{"display-message", "-p", "#{client_name}"}})
	if err != nil {
		return "", err
	}
	if replies[0].Failed {
		return "", errors.New(strings.TrimSpace(replies[0].Output))
	}
	return strings.TrimSpace(replies[0].Output), nil
}

// outputEvent handles an output client's notifications on its reading goroutine; it
// never blocks.
func (o *ControlMode) outputEvent(oc *outputClient) func(controlmode.Event) {
	structural := o.event()
	return func(e controlmode.Event) {
		switch e.Kind {
		case "output":
			if len(e.Args) == 0 {
				return
			}
			pause, wake := o.output(e.Args[0], e, oc)
			if pause {
				o.pause(e.Args[0], oc)
			}
			if !wake {
				return
			}
		case "pause":
			// tmux paused the pane itself (pause-after: we read too slowly).
			if len(e.Args) > 0 {
				o.pausedByTmux(pauseKey{e.Args[0], oc})
			}
		default:
			structural(e)
			return
		}
		o.poke()
	}
}

// output records what a pane printed (paneWatch.print). It reports whether the pane is
// to be paused for oc (it floods, streams, or prints more often than relaying is worth),
// and whether the looking goroutine is to be woken: not for output that only repeats
// shapes while the pane is skipped already (it is skipped here, with no look; the first
// skip woke it, to look when the pane stops).
func (o *ControlMode) output(pane string, e controlmode.Event, oc *outputClient) (pause, wake bool) {
	now := o.Now()
	sh := shapeOf(e.Data)
	o.mu.Lock()
	defer o.mu.Unlock()
	pw := o.watchOf(pane)
	skipping := pw.skipped && pw.printed.IsZero()
	pw.print(now, sh, len(e.Data), e.Cut)
	// An agent at work prints until its turn ends (a spinner, a stream, a tool's output),
	// and each relayed write costs tmux more than a capture
	// (docs/performance.md#what-tmux-costs): its screen on the clock costs less, and shows
	// a dialog or the turn's end at the next capture, within lookEvery (a relayed pane's new
	// shape is captured within debounce and a grid step).
	pw.pauseIt = pw.pauseIt || o.working[pane]
	// This may be Enter's newline, with a command to follow that prints nothing: at a
	// prompt, or at the prompt of a shell started from it, or of anything else.
	pw.frontUntil = now.Add(foregroundWindow)
	if pw.pauseIt && oc != nil && oc.name != "" { // else still attaching: it could not be continued by name
		k := pauseKey{pane, oc}
		if _, ok := o.pauses[k]; !ok {
			o.pauses[k] = pausing
			return true, true
		}
	}
	if skipping && pw.repeats() && !o.pausedFor(pane) {
		pw.looked(now, false)
		return false, false
	}
	return false, true
}

// pausedFor: the pane is paused, or being paused, for some output client. Called with
// o.mu held.
func (o *ControlMode) pausedFor(pane string) bool {
	for k := range o.pauses {
		if k.pane == pane {
			return true
		}
	}
	return false
}

// pause asks oc's tmux to stop sending the pane's output until it is continued. It
// does not wait: it runs on oc's reading goroutine, which reads the answer.
func (o *ControlMode) pause(pane string, oc *outputClient) {
	k := pauseKey{pane, oc}
	err := oc.Send([]string{"refresh-client", "-A", pane + ":pause"}, func(r controlmode.Reply, ok bool) {
		if ok && !r.Failed {
			o.pausedNow(k)
			o.poke()
			return
		}
		o.live(k) // the pane has gone, or the client: nothing is paused
	})
	if err != nil {
		o.live(k)
	}
}

func (o *ControlMode) live(k pauseKey) {
	o.mu.Lock()
	delete(o.pauses, k)
	o.mu.Unlock()
}

// pausedNow records that tmux has paused a pane for a client: from now on the pane is
// captured on a timer until it is still (controlmode_panes.go).
func (o *ControlMode) pausedNow(k pauseKey) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pauses[k] = paused
}

// pausedByTmux records a pause tmux made on its own. A client still attaching has no
// name to continue it by; its panes are captured at the look after it attached, and
// paused again if they print.
func (o *ControlMode) pausedByTmux(k pauseKey) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if k.client.name != "" {
		o.pauses[k] = paused
	}
}

// continueQuiet adds to the look the commands that continue its quiet paused panes, for
// every client that has paused them. Called with o.mu held.
func (o *ControlMode) continueQuiet(l *look) {
	quiet := map[string]bool{}
	for _, id := range l.panes {
		quiet[id] = o.watchOf(id).quiet()
	}
	for k, st := range o.pauses {
		if st == paused && quiet[k.pane] {
			pw := o.watchOf(k.pane)
			pw.resumed = pw.held
			l.continues = append(l.continues, []string{"refresh-client", "-t", k.client.name, "-A", k.pane + ":continue"})
			l.resumed = append(l.resumed, k)
			delete(o.pauses, k)
		}
	}
}

// stillPaused puts back the pauses a look meant to end when its commands did not go
// through: tmux holds those panes paused, and only a later continue frees them.
func (o *ControlMode) stillPaused(l look) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, k := range l.resumed {
		if _, ok := o.pauses[k]; !ok {
			o.pauses[k] = paused
		}
	}
}

// forget drops the pause states of a client that has gone.
func (o *ControlMode) forget(oc *outputClient) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range o.pauses {
		if k.client == oc {
			delete(o.pauses, k)
		}
	}
}
