package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/controlmode"
	"github.com/paneherd/paneherd/internal/termrec"
)

// recorder keeps what one pane prints, as a control client hears it, from the reply to
// one capture to the reply to the next. tmux writes a control client's notifications and
// replies in the order the server saw them, so the writes between two replies are
// exactly what changed the first screen into the second.
type recorder struct {
	pane string

	mu          sync.Mutex
	heard       int // the pane's output events so far, recorded or not
	on          bool
	start, stop time.Time
	writes      []termrec.Write
}

func (r *recorder) event(e controlmode.Event) {
	if e.Kind != "output" || len(e.Args) == 0 || e.Args[0] != r.pane {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.heard++
	if r.on {
		r.writes = append(r.writes, termrec.Write{At: time.Since(r.start), Data: controlmode.Unescape(e.Data)})
	}
}

// errMoved: the pane printed between a capture and the look at its cursor.
var errMoved = errors.New("the pane printed while it was looked at")

// record attaches a control client to the pane's session and records it for d: the
// screen first, every write, the screen last.
func record(ctx context.Context, p *pane, d time.Duration) (termrec.Recording, error) {
	r := &recorder{pane: p.id}
	c, err := controlmode.Attach(p.tmux, p.session, "ignore-size", r.event)
	if err != nil {
		return termrec.Recording{}, err
	}
	defer c.Close()
	var rec termrec.Recording
	for try := 0; ; try++ {
		rec.Start, err = r.look(ctx, c, true)
		if !errors.Is(err, errMoved) || try == 20 {
			break
		}
	}
	if err != nil {
		return rec, fmt.Errorf("the first screen: %w", err)
	}
	p.sleep(d)
	rec.End, err = r.look(ctx, c, false)
	if err != nil && !errors.Is(err, errMoved) { // the last cursor is only reported
		return rec, fmt.Errorf("the last screen: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Duration, rec.Writes = r.stop.Sub(r.start), r.writes
	return rec, nil
}

// cursorFormat asks where the cursor is and which modes a later write depends on.
const cursorFormat = "#{cursor_x} #{cursor_y} #{cursor_flag} #{alternate_on} #{scroll_region_upper} #{scroll_region_lower}"

// look captures the screen, then asks for its cursor and modes. With start the recording
// starts at the capture's reply, else it stops there. errMoved: the pane printed between
// the two replies, so the cursor may not be the capture's.
func (r *recorder) look(ctx context.Context, c *controlmode.Client, start bool) (termrec.Screen, error) {
	var s termrec.Screen
	var heard int
	replies := make(chan controlmode.Reply, 2)
	answer := func(rep controlmode.Reply, ok bool) {
		if !ok {
			rep.Failed, rep.Output = true, "the control client exited"
		}
		replies <- rep
	}
	capture := []string{"capture-pane", "-p", "-e", "-N", "-t", r.pane}
	err := c.Send(capture, func(rep controlmode.Reply, ok bool) {
		r.mu.Lock()
		heard = r.heard
		if start {
			r.on, r.start, r.writes = true, time.Now(), nil
		} else {
			r.on, r.stop = false, time.Now()
		}
		r.mu.Unlock()
		answer(rep, ok)
	})
	if err == nil {
		err = c.Send([]string{"display-message", "-p", "-t", r.pane, cursorFormat}, func(rep controlmode.Reply, ok bool) {
			r.mu.Lock()
			if r.heard != heard {
				rep.Failed, rep.Output = true, errMoved.Error()
			}
			r.mu.Unlock()
			answer(rep, ok)
		})
	}
	if err != nil {
		return s, err
	}
	var got [2]controlmode.Reply
	for i := range got {
		select {
		case got[i] = <-replies:
		case <-ctx.Done():
			return s, ctx.Err()
		}
	}
	if got[0].Failed {
		return s, fmt.Errorf("capture-pane: %s", got[0].Output)
	}
	s.Text = got[0].Output
	if got[1].Output == errMoved.Error() {
		return s, errMoved
	}
	if got[1].Failed {
		return s, fmt.Errorf("display-message: %s", got[1].Output)
	}
	var hidden, alt int
	fmt.Sscan(got[1].Output, &s.CursorX, &s.CursorY, &hidden, &alt, &s.ScrollTop, &s.ScrollBottom)
	s.CursorHidden, s.Alternate = hidden == 0, alt == 1
	return s, nil
}
