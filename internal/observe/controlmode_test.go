package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// startControl starts a control observer on the test's server, closed at the end.
func startControl(t *testing.T, h *tmuxtest.Handle) *ControlMode {
	t.Helper()
	o, err := StartControlMode(h.Server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.Close)
	return o
}

// nextWithin calls Next until a frame satisfies ok, failing after the deadline.
func nextWithin(t *testing.T, o *ControlMode, d time.Duration, ok func(Frame) bool) Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		f, err := o.Next(ctx, nil)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if ok(f) {
			return f
		}
	}
}

func TestControlModeSeesOutputAtOnce(t *testing.T) {
	h := tmuxtest.New(t)
	a := h.NewSession("one", "exec cat")
	b := h.NewSession("two", "exec cat")
	o := startControl(t, h)
	start := time.Now()
	first := nextWithin(t, o, 5*time.Second, func(f Frame) bool { return true })
	if len(first.Panes) != 2 || len(first.Screens) != 2 || first.Server == "" {
		t.Fatalf("first frame: %d panes, %d screens, server %q", len(first.Panes), len(first.Screens), first.Server)
	}
	// Let the full look that follows new output clients pass: after it, the next full
	// look is a reconcile (5 s) away, so a frame within 2 s can only come from the output.
	nextWithin(t, o, 5*time.Second, func(f Frame) bool { return time.Since(start) > settleAttach })

	for _, pane := range []string{a, b} {
		h.Run("send-keys", "-t", pane, "-l", "hello from "+pane)
		nextWithin(t, o, 2*time.Second, func(f Frame) bool { return strings.Contains(f.Screens[pane], "hello from "+pane) })
	}

	c := h.NewWindow("two", "new", "exec cat")
	nextWithin(t, o, 2*time.Second, func(f Frame) bool {
		for _, p := range f.Panes {
			if p.ID == c {
				return true
			}
		}
		return false
	})
}

// A pane that animates for a while, then holds a still screen, again and again: while it
// animates it is paused (tmux sends none of its output) and captured on a timer; once it
// is still it is continued, and the next burst is seen at once. Every still screen must
// be seen while it holds.
func TestControlModePausesPrintingPanesAndSeesEveryChange(t *testing.T) {
	h := tmuxtest.New(t)
	script := `for r in 1 2 3 4 5; do
		for i in 1 2 3 4 5 6 7 8; do printf '\033[H\033[2Jworking %s.%s\n' $r $i; sleep 0.1; done
		printf '\033[H\033[2Jstill %s\n' $r; sleep 1.5
	done; sleep 100`
	pane := h.NewSession("s", script)
	o := startControl(t, h)
	var pausedSeen, continuedSeen bool
	seen := map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for len(seen) < 5 {
		f, err := o.Next(ctx, nil)
		if err != nil {
			t.Fatalf("Next: %v (still screens seen: %v)", err, seen)
		}
		if sc, ok := f.Screens[pane]; ok && strings.HasPrefix(sc, "still ") {
			seen[strings.Fields(sc)[1]] = true
		}
		o.mu.Lock()
		active := o.activePanes()[pane]
		o.mu.Unlock()
		pausedSeen = pausedSeen || active
		continuedSeen = continuedSeen || (pausedSeen && !active)
	}
	if !pausedSeen || !continuedSeen {
		t.Errorf("the printing pane was paused: %v, continued after: %v", pausedSeen, continuedSeen)
	}
}

// With the control observer as its Via, a Server runs commands without a tmux process,
// and they behave as they do through one: chains stop at the first failure, errors
// classify the same, odd arguments arrive intact.
func TestCommandsThroughTheControlClientBehaveAsForked(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "exec cat")
	o := startControl(t, h)
	via := h.Server
	via.Via = o
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	odd := "a \"b\" $HOME ~ #{pane_id} \\ \x1f ;"
	chain := tmux.Chain([][]string{
		{"set-option", "-g", "@ph-a", tmux.LiteralArg(odd)},
		{"show-options", "-gv", "@ph-a"},
		{"set-option", "-g", "@ph-b", "1"},
		{"send-keys", "-t", "%999", "x"},
		{"set-option", "-g", "@ph-b", "2"},
	})
	results := map[string]string{}
	for name, s := range map[string]tmux.Server{"forked": h.Server, "via": via} {
		out, err := s.Run(ctx, nil, chain...)
		if !errors.Is(err, tmux.ErrNoPane) {
			t.Errorf("%s: the chain's failure: %v", name, err)
		}
		b, _ := h.Server.Run(ctx, nil, "show-options", "-gv", "@ph-b")
		results[name] = out + "|" + b
		h.Run("set-option", "-gu", "@ph-a")
	}
	if want := odd + "\n|1\n"; results["forked"] != want || results["via"] != want {
		t.Errorf("output|@ph-b: forked %q, via %q; want %q", results["forked"], results["via"], want)
	}

	// No tmux binary to start: only the control client can answer.
	t.Setenv("PATH", t.TempDir())
	if _, err := h.Server.Run(ctx, nil, "list-sessions"); err == nil {
		t.Fatal("a forked tmux ran without a tmux on PATH: the test proves nothing")
	}
	clients, err := via.Clients(ctx)
	if err != nil || len(clients) == 0 {
		t.Errorf("list-clients through the control client: %v, %d clients", err, len(clients))
	}
}

// A flood in one pane is paused at once, so tmux stops relaying it, and another pane's
// changes are still seen at once. (Not yes(1): its screen never changes, so it is let go
// live again and again, and only costs a notification now and then.)
func TestControlModeFloodDoesNotStarveOtherPanes(t *testing.T) {
	h := tmuxtest.New(t)
	flood := h.NewSession("s", "exec seq 1000000000000")
	other := h.NewWindow("s", "other", "exec cat")
	o := startControl(t, h)
	start := time.Now()
	nextWithin(t, o, 5*time.Second, func(f Frame) bool { return time.Since(start) > settleAttach })
	nextWithin(t, o, 5*time.Second, func(Frame) bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.activePanes()[flood]
	})
	for i := 0; i < 5; i++ {
		word := fmt.Sprintf("word%d", i)
		h.Run("send-keys", "-t", other, "-l", word)
		nextWithin(t, o, 2*time.Second, func(f Frame) bool { return strings.Contains(f.Screens[other], word) })
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.activePanes()[flood] {
		t.Error("the flooding pane is not paused")
	}
}

// With every session gone and the server kept up (exit-empty off), the command client has
// nothing to attach to: the observer says so about once a second, not in a tight loop.
func TestControlModeWithNoSessionsHoldsOff(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "exec cat")
	o := startControl(t, h)
	nextWithin(t, o, 5*time.Second, func(Frame) bool { return true })
	h.Run("kill-session", "-t", "s")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	calls, failures := 0, 0
	for ctx.Err() == nil {
		calls++
		if _, err := o.Next(ctx, nil); err != nil && ctx.Err() == nil {
			failures++
		}
	}
	if failures == 0 || calls > 10 {
		t.Errorf("%d looks in 3 s, %d of them failed: want a few failures, held off", calls, failures)
	}
}

// The pause book-keeping, without tmux: only quiet paused panes are continued; continues
// that did not go through leave their panes paused; a pane gone from the list loses its
// pause, one not listed yet keeps it.
func TestPauseBookKeeping(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	o := &ControlMode{Now: time.Now, watch: map[string]*paneWatch{}, pauses: map[pauseKey]pauseState{},
		panes: []tmux.Pane{{ID: "%1"}, {ID: "%2"}}}
	o.pauses[pauseKey{"%1", oc}] = paused
	o.pauses[pauseKey{"%2", oc}] = paused
	quiet := o.watchOf("%1")
	quiet.held, quiet.seen = time.Unix(100, 0), time.Unix(100, 0).Add(stillFor)
	l := o.toCapture(time.Now(), nil, true)
	want := [][]string{{"refresh-client", "-t", "client-1", "-A", "%1:continue"}}
	if fmt.Sprint(l.continues) != fmt.Sprint(want) || len(o.pauses) != 1 {
		t.Fatalf("continues %q, pauses left %v", l.continues, o.pauses)
	}
	o.stillPaused(l)
	if o.pauses[pauseKey{"%1", oc}] != paused {
		t.Errorf("a continue that did not go through: pauses %v", o.pauses)
	}

	o.pauses[pauseKey{"%3", oc}] = pausing // printed before any list showed it
	prev := o.panes
	o.panes = []tmux.Pane{{ID: "%2"}}
	o.forgetGone(prev)
	_, gone := o.pauses[pauseKey{"%1", oc}]
	_, fresh := o.pauses[pauseKey{"%3", oc}]
	if gone || !fresh || len(o.pauses) != 2 {
		t.Errorf("after %%1 vanished and %%3 appeared unlisted: pauses %v", o.pauses)
	}
}

// Without tmux: a pane that prints once is captured, not paused; one that prints again
// soon after it was captured is paused; one that prints again much later is not; a
// burst that comes in floodChunks pieces before its capture is paused.
func TestOnlyPanesThatKeepPrintingArePaused(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}}
	step := func(d time.Duration, what string, wantPause bool) {
		t.Helper()
		now = now.Add(d)
		if got := o.output("%1", oc); got != wantPause {
			t.Fatalf("%s: pause %v, want %v", what, got, wantPause)
		}
		if l := o.toCapture(now.Add(lookEvery), nil, false); len(l.panes) != 1 {
			t.Fatalf("%s: captured %v, want the pane", what, l.panes)
		}
		o.live(pauseKey{"%1", oc}) // as if continued: live again
	}
	step(0, "first output", false)
	step(printsAgain+time.Millisecond, "output long after the last", false)
	step(printsAgain/2, "output soon after the last", true)

	now = now.Add(time.Hour)
	for i := 1; i <= floodChunks; i++ {
		if got, want := o.output("%1", oc), i == floodChunks; got != want {
			t.Fatalf("chunk %d of a burst not yet captured: pause %v, want %v", i, got, want)
		}
	}
}

// Stillness is time, not a count of captures: one frame of a spinner that redraws every
// 400 ms, caught by the look after its output and the next two on the clock, is not
// still; a screen held past stillFor is, until the pane prints.
func TestStillnessIsHowLongTheScreenHeld(t *testing.T) {
	pw := &paneWatch{}
	start := time.Unix(1000, 0)
	see := func(after time.Duration, screen string) {
		pw.captured = start.Add(after)
		pw.saw(screen)
	}
	see(0, "frame 1")
	see(100*time.Millisecond, "frame 1")
	see(300*time.Millisecond, "frame 1")
	if pw.quiet() {
		t.Fatal("one spinner frame seen three times within 300 ms counts as still")
	}
	see(500*time.Millisecond, "frame 2")
	see(700*time.Millisecond, "frame 2")
	if pw.quiet() {
		t.Fatal("a new frame counts as still at once")
	}
	see(500*time.Millisecond+stillFor, "frame 2")
	if !pw.quiet() {
		t.Fatalf("a screen held for %v is not still", stillFor)
	}
	pw.held = time.Time{} // what output does
	see(time.Second+stillFor, "frame 2")
	if pw.quiet() {
		t.Fatal("a pane that printed is still at its next capture")
	}
}

// Without tmux: a paused pane that held still is continued; printsAgain then counts from
// when its screen last changed, so a spinner that resumes is paused at once and a clock
// that ticks every 1.2 s is not paused again at each tick.
func TestContinuedPaneIsPausedAgainOnlyIfItKeepsPrinting(t *testing.T) {
	for _, c := range []struct {
		next  time.Duration // after its screen last changed
		pause bool
	}{{800 * time.Millisecond, true}, {1200 * time.Millisecond, false}} {
		oc := &outputClient{name: "client-1"}
		changed := time.Unix(1000, 0)
		now := changed
		o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
			pauses: map[pauseKey]pauseState{{"%1", oc}: paused}, panes: []tmux.Pane{{ID: "%1"}}}
		pw := o.watchOf("%1")
		pw.burst = changed.Add(-time.Minute)
		for _, at := range []time.Duration{0, 200, 400, 600} { // the same screen, look after look
			pw.captured = changed.Add(at * time.Millisecond)
			pw.saw("still")
		}
		now = changed.Add(800 * time.Millisecond) // its next look on the clock
		if l := o.toCapture(now, nil, false); len(l.continues) != 1 {
			t.Fatalf("a pane still for 600 ms was not continued: %v", l.continues)
		}
		now = changed.Add(c.next)
		if got := o.output("%1", oc); got != c.pause {
			t.Errorf("output %v after the screen last changed: pause %v, want %v", c.next, got, c.pause)
		}
	}
}

// Without tmux: a window linked into two sessions is reported by both output clients; a
// burst judged to keep printing is paused for each of them, not only the first to tell.
func TestPaneThatKeepsPrintingIsPausedForEveryClient(t *testing.T) {
	one, two := &outputClient{name: "client-1"}, &outputClient{name: "client-2"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}}
	o.watchOf("%1").burst = now.Add(-printsAgain / 2) // it printed a moment ago
	if !o.output("%1", one) || !o.output("%1", two) {
		t.Errorf("pauses %v: want the pane paused for both clients", o.pauses)
	}
}
