package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/controlmode"
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

// A pane that streams new text for a while, then holds a still screen, again and again:
// while it streams it is paused (tmux sends none of its output) and captured on a timer;
// once it is still it is continued, and the next burst is seen at once. Every still
// screen must be seen while it holds.
func TestControlModePausesStreamingPanesAndSeesEveryChange(t *testing.T) {
	h := tmuxtest.New(t)
	script := `for r in 1 2 3; do
		for i in $(seq 40); do od -An -x -N 24 /dev/urandom; sleep 0.05; done
		printf '\033[H\033[2Jstill %s\n' $r; sleep 1.5
	done; sleep 100`
	pane := h.NewSession("s", script)
	o := startControl(t, h)
	var pausedSeen, continuedSeen bool
	seen := map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for len(seen) < 3 {
		f, err := o.Next(ctx, nil)
		if err != nil {
			t.Fatalf("Next: %v (still screens seen: %v)", err, seen)
		}
		if sc, ok := f.Screens[pane]; ok && strings.HasPrefix(sc, "still ") {
			seen[strings.Fields(sc)[1]] = true
		}
		o.mu.Lock()
		active := o.pausedFor(pane)
		o.mu.Unlock()
		pausedSeen = pausedSeen || active
		continuedSeen = continuedSeen || (pausedSeen && !active)
	}
	if !pausedSeen || !continuedSeen {
		t.Errorf("the streaming pane was paused: %v, continued after: %v", pausedSeen, continuedSeen)
	}
}

// A pane that animates (a spinner line redrawn with a ticking count, as agents do), then
// holds a still screen, again and again: its repeated frames are not captured but
// reported as movement, and every still screen is seen while it holds.
func TestControlModeSkipsRepeatedFramesAndSeesEveryChange(t *testing.T) {
	h := tmuxtest.New(t)
	const rounds, frames = 4, 12
	script := fmt.Sprintf(`for r in $(seq %d); do
		for i in $(seq %d); do g='*'; [ $((i %% 2)) = 0 ] && g='+'; printf '\r\033[2K%%s working %%ss' "$g" $i; sleep 0.1; done
		printf '\r\033[2Kstill %%s' $r; sleep 1.5
	done; sleep 100`, rounds, frames)
	pane := h.NewSession("s", script)
	o := startControl(t, h)
	seen := map[string]bool{}
	var working, moved int
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for len(seen) < rounds {
		f, err := o.Next(ctx, nil)
		if err != nil {
			t.Fatalf("Next: %v (still screens seen: %v)", err, seen)
		}
		sc, ok := f.Screens[pane]
		switch {
		case ok && strings.HasPrefix(sc, "still "):
			seen[strings.Fields(sc)[1]] = true
		case ok && strings.Contains(sc, "working"):
			working++
		}
		if !f.Moved[pane].IsZero() {
			moved++
		}
	}
	// Two glyphs: two frames of each round are new (more if a busy machine merges two
	// frames in one read); a reconcile may catch one more.
	t.Logf("%d animation frames: %d captured, movement reported in %d frames", rounds*frames, working, moved)
	if working > rounds*frames/3 || moved == 0 {
		t.Errorf("%d animation frames: %d captured, movement reported in %d frames", rounds*frames, working, moved)
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
		return o.pausedFor(flood)
	})
	for i := 0; i < 5; i++ {
		word := fmt.Sprintf("word%d", i)
		h.Run("send-keys", "-t", other, "-l", word)
		nextWithin(t, o, 2*time.Second, func(f Frame) bool { return strings.Contains(f.Screens[other], word) })
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.pausedFor(flood) {
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

// printed is one %output of data, as the output client reports it.
func printed(data string) controlmode.Event {
	return controlmode.Event{Kind: "output", Args: []string{"%1"}, Data: []byte(data)}
}

// Without tmux: a pane that prints once is captured, not paused; while it keeps
// printing, output of shapes it was captured after is skipped (and reported as movement),
// a new shape is captured, and it is captured again when it stops; its shapes are
// forgotten once it has been still for printsAgain.
func TestRepeatedShapesAreSkippedNewOnesCaptured(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}, lastFull: now.Add(time.Hour)}
	// lookAt is when the pane wants its next look (the foreground clock left out).
	lookAt := func() time.Time {
		at, ok := o.watchOf("%1").nextLook(false)
		if !ok {
			return now.Add(time.Hour)
		}
		return onGrid(at)
	}
	// frame prints data after d, and looks when the pane's look is due: captured or not.
	// A pane skipped already skips repeated output as it comes, with no look.
	frame := func(d time.Duration, data string, what string, wantCapture bool) (woke bool) {
		t.Helper()
		now = now.Add(d)
		printedAt := now
		pause, wake := o.output("%1", printed(data), oc)
		if pause {
			t.Fatalf("%s: paused", what)
		}
		captured, skipped := false, !wake
		if wake {
			at := lookAt()
			if at.Sub(now) > lookGrid+debounce {
				t.Fatalf("%s: look due only after %v", what, at.Sub(now))
			}
			now = at
			l := o.toCapture(now, nil, false)
			captured, skipped = len(l.panes) == 1, l.skipped
		}
		if captured != wantCapture || skipped == wantCapture {
			t.Fatalf("%s: captured %v (skipped %v), want captured %v", what, captured, skipped, wantCapture)
		}
		screens := map[string]string{}
		if captured {
			screens["%1"] = data // as if captured
		}
		moved := o.sawScreens(nil, screens)
		if !wantCapture && !moved["%1"].Equal(printedAt) {
			t.Fatalf("%s: skipped output reported as movement at %v, want %v", what, moved["%1"], printedAt)
		}
		return wake
	}
	spin := func(glyph string, secs int) string {
		return fmt.Sprintf(`\033[5;1H\033[2K%s Thinking… (%ds · esc to interrupt)`, glyph, secs)
	}
	frame(0, spin("✻", 1), "first frame", true)
	frame(100*time.Millisecond, spin("✶", 1), "second glyph", true)
	frame(100*time.Millisecond, spin("✻", 2), "first glyph again, the timer on", false)
	if frame(100*time.Millisecond, spin("✶", 12), "second glyph again", false) {
		t.Fatal("a pane skipped already woke the looking goroutine for output that repeats")
	}
	frame(100*time.Millisecond, `\033[8;1H\033[2K Do you want to proceed?`, "a dialog", true)

	// It stops after a skipped frame: looked at once it has been still for printsAgain.
	frame(100*time.Millisecond, spin("✻", 3), "spinner again", false)
	at := lookAt()
	if at.Before(now.Add(printsAgain-lookGrid-debounce)) || at.After(now.Add(printsAgain)) {
		t.Fatalf("stopped pane looked at %v after its last look, want about %v", at.Sub(now), printsAgain)
	}
	now = at
	if l := o.toCapture(now, nil, false); len(l.panes) != 1 {
		t.Fatalf("a pane that stopped after skipped output is not captured: %v", l.panes)
	}
	o.sawScreens(nil, nil)
	if at := lookAt(); !at.After(now.Add(time.Second)) {
		t.Fatalf("after its stop look, a still pane is looked at again at %v", at)
	}
	// Still for printsAgain: a new run, and the first frame is captured again.
	frame(printsAgain, spin("✻", 4), "the spinner after a pause", true)
}

// Without tmux: output that floods (many bytes in many chunks; whole screens drawn again
// and again) before its look is paused at once; a pane that keeps printing new shapes is
// paused after freshLooks looks.
func TestFloodsAndStreamsArePaused(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}}
	// A new screen in several pieces is no flood; a cat of a big file is.
	for i := 1; i <= floodChunks; i++ {
		if outputPauses(o, printed(fmt.Sprint("line ", i)), oc) {
			t.Fatalf("a screen's piece %d is paused", i)
		}
	}
	o.toCapture(now, nil, true)
	now = now.Add(time.Hour)
	chunk := printed(strings.Repeat("y", openFlood/floodChunks))
	for i := 1; i <= floodChunks; i++ {
		if got, want := outputPauses(o, chunk, oc), i == floodChunks; got != want {
			t.Fatalf("chunk %d of a flood not yet looked at: pause %v, want %v", i, got, want)
		}
	}
	o.live(pauseKey{"%1", oc})
	now = now.Add(time.Second)
	o.toCapture(now, nil, true)
	screen := printed(strings.Repeat("x", floodBytes))
	if outputPauses(o, screen, oc) {
		t.Fatalf("a new screen of %d bytes, drawn once, is paused", floodBytes)
	}
	now = now.Add(lookEvery)
	o.toCapture(now, nil, false)
	now = now.Add(lookEvery)
	if !outputPauses(o, screen, oc) {
		t.Fatalf("a screen of %d bytes drawn again soon after is not paused", floodBytes)
	}
	o.live(pauseKey{"%1", oc})
	now = now.Add(printsAgain) // a new run
	o.toCapture(now, nil, true)

	// A stream: new text every 100 ms, each captured, until it is paused.
	for i := 0; ; i++ {
		now = now.Add(100 * time.Millisecond)
		if outputPauses(o, printed("streamed words "+strings.Repeat("ab", i)), oc) {
			if i != freshLooks {
				t.Fatalf("a stream paused after %d looks, want %d", i, freshLooks)
			}
			break
		}
		if i > freshLooks {
			t.Fatal("a stream of new shapes is never paused")
		}
		now = now.Add(lookEvery)
		l := o.toCapture(now, nil, false)
		if len(l.panes) != 1 {
			t.Fatalf("look %d of a stream skipped it", i)
		}
		o.sawScreens(nil, nil)
	}
}

// Without tmux: an animation of as many frames as a run learns, one frame a look, is
// captured through its first round and skipped from its second, not taken for a stream.
func TestLongestAnimationIsLearntNotPaused(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}, lastFull: now.Add(time.Hour)}
	frame := func(i int) string { return "\x1b[33;1H" + strings.Repeat("·", i%maxShapes+1) + " Thinking" }
	for i := 0; i < 2*maxShapes; i++ {
		now = now.Add(400 * time.Millisecond)
		if outputPauses(o, printed(frame(i)), oc) {
			t.Fatalf("frame %d of a %d-frame animation is paused", i, maxShapes)
		}
		l := o.toCapture(now.Add(debounce), nil, false)
		if captured, firstRound := len(l.panes) == 1, i < maxShapes; captured != firstRound {
			t.Fatalf("frame %d: captured %v, want %v (captured in the first round only)", i, captured, firstRound)
		}
		o.sawScreens(nil, map[string]string{"%1": frame(i)})
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

// Without tmux: a pane whose output only repeats itself, but comes more than liveRate
// times a second (Codex's spinner), is paused: capturing it is cheaper than relaying it.
func TestFastAnimationIsPaused(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}, lastFull: now.Add(time.Hour)}
	const rate = liveRate + 3
	for i := 1; i <= 2*rate; i++ {
		now = now.Add(time.Second / rate)
		pause, _ := o.output("%1", printed(`\033[?2026h\033[37;3H\033[?25h\033[?2026l`), oc)
		if pause {
			if i != liveRate+1 {
				t.Fatalf("paused at notification %d, want %d", i, liveRate+1)
			}
			return
		}
		if at, ok := o.watchOf("%1").nextLook(false); ok && !at.After(now) {
			o.toCapture(now, nil, false)
			o.sawScreens(nil, nil)
		}
	}
	t.Fatalf("%d notifications a second, all one shape, are not paused", rate)
}

// outputPauses: the output makes the pane paused for oc.
func outputPauses(o *ControlMode, e controlmode.Event, oc *outputClient) bool {
	pause, _ := o.output("%1", e, oc)
	return pause
}

// Without tmux: a window linked into two sessions is reported by both output clients; a
// flood is paused for each of them, not only the first to tell.
func TestFloodIsPausedForEveryClient(t *testing.T) {
	one, two := &outputClient{name: "client-1"}, &outputClient{name: "client-2"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}}
	chunk := printed(strings.Repeat("y", openFlood/floodChunks))
	for i := 1; i < floodChunks; i++ { // one client tells of all but the last chunk
		outputPauses(o, chunk, one)
	}
	if !outputPauses(o, chunk, one) || !outputPauses(o, chunk, two) {
		t.Errorf("pauses %v: want the pane paused for both clients", o.pauses)
	}
}

// A shape is the bytes with every number the same: a timer's tick or a token count
// leaves it, any other change makes a new one.
func TestShapeOf(t *testing.T) {
	same := [][2]string{
		{`\033[5;1H✻ Thinking… (9s · ↓ 120 tokens)`, `\033[12;1H✻ Thinking… (10s · ↓ 1200 tokens)`},
		{"50%", "7%"},
	}
	for _, c := range same {
		if shapeOf([]byte(c[0])) != shapeOf([]byte(c[1])) {
			t.Errorf("%q and %q differ in shape", c[0], c[1])
		}
	}
	differ := [][2]string{
		{`✻ Thinking… (9s)`, `✶ Thinking… (9s)`},
		{"Do you want to proceed? 1. Yes", "Do you want to proceed? 1. No"},
		{"a1b", "ab"},
	}
	for _, c := range differ {
		if shapeOf([]byte(c[0])) == shapeOf([]byte(c[1])) {
			t.Errorf("%q and %q have one shape", c[0], c[1])
		}
	}
}

// onGrid rounds up to the grid and keeps the monotonic clock reading: a wait measured on
// the wall clock against monotonic deadlines spins after a suspend or a clock step.
func TestOnGridKeepsTheMonotonicClock(t *testing.T) {
	now := time.Now()
	g := onGrid(now)
	if g.Before(now) || g.Sub(now) >= lookGrid || g.UnixNano()%int64(lookGrid) != 0 {
		t.Fatalf("onGrid(%v) = %v", now, g)
	}
	if !strings.Contains(g.String(), "m=") {
		t.Errorf("onGrid dropped the monotonic reading: %v", g)
	}
}

// Without tmux: a live pane's capture says when it last printed (Frame.Printed), which
// comes before the capture; a paused pane's says nothing (tmux sends none of its output),
// nor does a pane captured though it printed nothing.
func TestCaptureSaysWhenALivePaneLastPrinted(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}}, lastFull: now.Add(time.Hour)}
	o.output("%1", printed("hello"), oc)
	now = now.Add(10 * time.Millisecond)
	o.output("%1", printed(" world"), oc)
	last := now
	now = now.Add(debounce + 40*time.Millisecond)
	if l := o.toCapture(now, nil, false); len(l.panes) != 1 || !l.printed["%1"].Equal(last) {
		t.Fatalf("captured %v, printed %v; want %%1, last printed %v", l.panes, l.printed, last)
	}
	now = now.Add(time.Second)
	if l := o.toCapture(now, nil, true); len(l.panes) != 1 || len(l.printed) != 0 {
		t.Fatalf("a full look at a pane that printed nothing: captured %v, printed %v", l.panes, l.printed)
	}
	now = now.Add(time.Second)
	o.pauses[pauseKey{"%1", oc}] = pausing
	o.output("%1", printed("more"), oc)
	now = now.Add(lookEvery)
	if l := o.toCapture(now, nil, false); len(l.panes) != 1 || len(l.printed) != 0 {
		t.Fatalf("a paused pane: captured %v, printed %v; want it captured, no time", l.panes, l.printed)
	}
}

// Without tmux: a pane that printed between its look and the capture's reply has no
// time in the frame (its screen may show that later output).
func TestOutputDuringTheCaptureDropsThePrintedTime(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}, {ID: "%2"}}, lastFull: now.Add(time.Hour)}
	o.output("%1", printed("one"), oc)
	o.output("%2", controlmode.Event{Kind: "output", Args: []string{"%2"}, Data: []byte("two")}, oc)
	now = now.Add(debounce + 40*time.Millisecond)
	l := o.toCapture(now, nil, false)
	if len(l.printed) != 2 {
		t.Fatalf("printed %v, want both panes", l.printed)
	}
	o.output("%1", printed("more"), oc) // while the capture is on its way
	o.printedSinceLook(l.printed)
	if _, ok := l.printed["%1"]; ok || len(l.printed) != 1 {
		t.Fatalf("printed %v, want %%2 only", l.printed)
	}
}

// Without tmux: a due time is looked at when it comes, off the grid, once (a due time the
// watcher keeps is captured on the grid). A pane that printed nothing since its capture
// is read again then with no capture; one that printed, or is paused, is captured, and a
// capture on its clock a moment before the due time leaves that time to come.
func TestADuePaneThatPrintedNothingIsReadAgainWithoutACapture(t *testing.T) {
	oc := &outputClient{Client: &controlmode.Client{}, name: "client-1"} // attached, never done
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1", SessionID: "$1"}}, lastFull: now.Add(time.Hour),
		sessions: map[string]*outputClient{"$1": oc}}
	o.output("%1", printed("❯ "), oc)
	now = now.Add(debounce)
	if l := o.toCapture(now, nil, false); len(l.panes) != 1 {
		t.Fatalf("the output was not captured: %v", l.panes)
	}
	o.sawScreens(nil, map[string]string{"%1": "❯ "})
	o.watchOf("%1").frontUntil = time.Time{} // its foreground's clock left out

	due := Due{"%1": now.Add(173 * time.Millisecond)} // off the 100 ms grid
	if next := o.nextLook(due); !next.Equal(due["%1"]) {
		t.Fatalf("next look at %v, want the due time %v itself", next.Sub(now), due["%1"].Sub(now))
	}
	now = due["%1"]
	l := o.toCapture(now, due, false)
	if len(l.panes) != 0 || len(l.unchanged) != 1 || !l.unchanged["%1"] {
		t.Fatalf("captured %v, unchanged %v; want %%1 read again uncaptured", l.panes, l.unchanged)
	}
	// The watcher still says the same time: it is captured, on the grid, a grid step
	// after that look at the earliest (a time that never passes costs a capture every
	// step, not one per round trip).
	if next, want := o.nextLook(due), onGrid(now.Add(lookGrid)); !next.Equal(want) {
		t.Fatalf("a due time read already: next look at %v, want the grid's %v", next, want)
	}
	if l := o.toCapture(now, due, false); len(l.panes) != 0 || len(l.unchanged) != 0 {
		t.Fatalf("a due time read already, looked at again at once: captured %v, unchanged %v", l.panes, l.unchanged)
	}
	now = onGrid(now.Add(lookGrid))
	if l := o.toCapture(now, due, false); len(l.panes) != 1 || len(l.unchanged) != 0 {
		t.Fatalf("a due time read already: captured %v, unchanged %v; want a capture", l.panes, l.unchanged)
	}
	o.sawScreens(nil, map[string]string{"%1": "❯ "})

	// A capture that did not arrive, or no output client of its session to tell: captured.
	for name, unsure := range map[string]func() func(){
		"its last capture lost": func() func() {
			o.sawScreens([]string{"%1"}, nil)
			return func() { o.sawScreens(nil, map[string]string{"%1": "❯ "}) }
		},
		"no output client": func() func() {
			delete(o.sessions, "$1")
			return func() { o.sessions["$1"] = oc }
		},
	} {
		undo := unsure()
		now = now.Add(time.Second)
		due = Due{"%1": now}
		if l := o.toCapture(now, due, false); len(l.panes) != 1 || len(l.unchanged) != 0 {
			t.Fatalf("%s: captured %v, unchanged %v; want a capture", name, l.panes, l.unchanged)
		}
		undo()
	}

	// It printed since: captured.
	o.output("%1", printed("⠋ working"), oc)
	now = now.Add(debounce)
	due = Due{"%1": now}
	if l := o.toCapture(now, due, false); len(l.panes) != 1 || len(l.unchanged) != 0 {
		t.Fatalf("a due pane that printed: captured %v, unchanged %v; want a capture", l.panes, l.unchanged)
	}
	o.sawScreens(nil, map[string]string{"%1": "⠋ working"})
	o.watchOf("%1").frontUntil = time.Time{}

	// Paused: what it prints is not relayed, so it is captured, at its due time too: a
	// look on its clock a moment before that time leaves the due time to come.
	o.pauses[pauseKey{"%1", oc}] = paused
	now = now.Add(time.Second)
	due = Due{"%1": now.Add(lookEvery + 3*time.Millisecond)}
	now = now.Add(lookEvery)
	if l := o.toCapture(now, due, false); len(l.panes) != 1 || len(l.unchanged) != 0 {
		t.Fatalf("a paused pane due 3 ms later: captured %v, unchanged %v; want a capture", l.panes, l.unchanged)
	}
	o.sawScreens(nil, map[string]string{"%1": "⠋ working"})
	if next := o.nextLook(due); !next.Equal(due["%1"]) {
		t.Fatalf("a paused pane looked at 3 ms before its due time: next look in %v, want at it (%v)", next.Sub(now), due["%1"].Sub(now))
	}
	now = due["%1"]
	if l := o.toCapture(now, due, false); len(l.panes) != 1 || len(l.unchanged) != 0 {
		t.Fatalf("a paused due pane: captured %v, unchanged %v; want a capture", l.panes, l.unchanged)
	}
}

// Without tmux: a pane whose agent the watcher says is at work is paused at its first
// output (captured on the clock from then on); the same output from a pane not at work is
// relayed.
func TestAPaneAtWorkIsPausedAtItsFirstOutput(t *testing.T) {
	oc := &outputClient{name: "client-1"}
	now := time.Unix(1000, 0)
	o := &ControlMode{Now: func() time.Time { return now }, watch: map[string]*paneWatch{},
		pauses: map[pauseKey]pauseState{}, panes: []tmux.Pane{{ID: "%1"}, {ID: "%2"}}, lastFull: now.Add(time.Hour)}
	o.SetWorking(map[string]bool{"%1": true})
	spinner := `\033[5;1H\033[2K✻ Thinking… (3s · esc to interrupt)`
	if !outputPauses(o, printed(spinner), oc) {
		t.Error("a pane at work printing its spinner is relayed, not paused")
	}
	two := controlmode.Event{Kind: "output", Args: []string{"%2"}, Data: []byte(spinner)}
	if pause, _ := o.output("%2", two, oc); pause {
		t.Error("a pane not at work is paused at its first output")
	}
}
