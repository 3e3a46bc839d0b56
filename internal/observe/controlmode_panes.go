package observe

import (
	"slices"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/tmux"
)

// What the control observer captures, and when.
//
// A pane that sits still costs nothing: tmux tells when it prints. Its output is
// captured after debounce (a burst of output is one change). A pane that prints once (a
// prompt, a dialog, an error) costs that one capture. One that keeps printing stays
// live while what it prints repeats (an animation, shapes.go): after each shape's first
// capture its frames are skipped, reported to the watcher as movement (Frame.Moved), and
// the pane is captured when it prints a new shape, when it stops (printsAgain after its
// last skipped output), and at every reconcile. One that floods, or keeps printing new
// shapes (a stream), is paused (see controlmode_output.go): from then on it is captured
// every lookEvery, through the command client, and tmux sends none of its output.
// Relaying a stream is what costs: tmux encodes every byte for a control client, one
// client process copies it on, the daemon reads it; a capture of the screen is a
// fraction of that. A spinner line's redraw is a fraction of a capture. But a pause and
// its continue cost tmux four messages and the daemon four captures more (0.8 s of
// looking, see stillFor), which a single redraw does not repay. Paused panes are
// captured together, on one clock (multiples of lookEvery), so their looks share a round
// trip and a frame. Once its captures have shown the same screen for stillFor (see
// quiet), the pane is continued just before the next one, and it is back to costing
// nothing until it prints again.
const (
	debounce  = 25 * time.Millisecond
	lookEvery = 200 * time.Millisecond
	// printsAgain: output this soon after the pane's last output goes on the same run
	// (what it learnt of its shapes holds); a pane that printed repeated shapes and then
	// nothing for this long has stopped, and is captured.
	printsAgain = time.Second
	// floodChunks, openFlood, floodBytes: output that comes as this many %output
	// notifications and bytes before its look is a flood (cat of a big file); a screen's
	// worth of bytes after a look that had as many is a screen redrawn frame after frame.
	// Either is paused at once rather than relayed: relaying it costs more than a
	// capture. (A spinner line's redraw is a tenth of floodBytes.)
	floodChunks = 4
	floodBytes  = 2048
	openFlood   = 16 << 10
	// freshLooks: a pane captured this many looks in a row for new shapes, within one
	// run, and printing yet another, is streaming something other than an animation, and
	// is paused. As many as a run learns (maxShapes): an animation of up to that many
	// frames is learnt before it could be taken for a stream. With fewer, an animation
	// of more frames than freshLooks is paused at the end of its first round and
	// captured on the clock for as long as it runs, instead of skipped as it repeats.
	freshLooks = maxShapes
	// liveRate: a pane that prints more %output notifications than this in a second is
	// paused, repeated shapes or not. For tmux a relayed notification costs one to four
	// captures (docs/performance.md#what-tmux-costs), for the daemon a capture costs about
	// ten notifications (a reply to read, a screen to parse and read, a foreground to
	// stamp): past this rate, capturing every lookEvery is the cheaper way to watch it.
	// Claude Code's spinner stays under it, Codex's and Gemini CLI's go over
	// (docs/tmux-facts.md, "Real agents while busy").
	liveRate = 12
	// stillFor: a paused pane whose captures show one screen for this long is still, and
	// continued. Longer than one frame of a slow spinner (the bench's redraws every
	// 400 ms): counting captures instead would let one frame seen at a look after its
	// output and at the next two on the clock (300 ms) pass for still, and the pane would
	// go continue, print, pause every frame. Times are those of the looks, not of the
	// captures' replies: a reply delayed past the margin (50 ms over the bench's
	// spinner) can still let a frame pass for still. That costs a continue and a pause,
	// never a change unseen.
	stillFor = 450 * time.Millisecond
	// lookGrid: looks for output, the paused clock and foregrounds happen only at
	// multiples of it, and take every pane whose time has come by then. A frame costs
	// the daemon the same whether it has one pane or twenty (classify the changed
	// screens, store, snapshot, push the line): with the grid, a server full of busy
	// panes costs at most 1/lookGrid of those frames a second, for at most lookGrid of
	// delay. A structural change is looked at at once, and a time the watcher says a pane
	// is due at that time, once (a READY settling: rare, and latency is what it is for).
	lookGrid = 100 * time.Millisecond
	// gather: a pane whose look is due this soon is captured with the current look.
	gather = 20 * time.Millisecond
)

// paneWatch is what the control observer knows of one pane between looks.
type paneWatch struct {
	printed time.Time // first output since its last look; zero: none
	lastOut time.Time // its last output
	// Since its last look: %output notifications, their bytes, whether any had a shape
	// not learnt in this run (fresh), their shapes (to learn once captured: learning).
	chunks    int
	bytes     int
	fresh     bool
	unlearned []uint64
	learning  []uint64
	shapes    shapes // learnt in this run (shapes.go)
	fresher   int    // looks in a row that captured it for new shapes, in this run
	// skipped: output since its last capture was not captured (it repeated shapes), so
	// it is captured when it stops; movedAt: the last such output since the last frame,
	// which says so (Frame.Moved); zero: none.
	skipped bool
	movedAt time.Time
	// pauseIt: it floods or streams, and is paused for every client that reports it.
	// bigBefore: its last look, in this run, followed a screen's worth (floodBytes).
	pauseIt   bool
	bigBefore bool
	// resumed: it was continued, and its screen last changed then; zero: it has printed
	// since, or was never paused.
	resumed time.Time
	// perSecond counts its %output notifications since second (liveRate).
	second    time.Time
	perSecond int
	captured  time.Time
	screen    string    // its last capture
	held      time.Time // the look that first captured screen; zero: it printed since
	seen      time.Time // the look that last captured it
	// Its foreground (foreground.go): read on the clock until frontUntil (it printed
	// lately); frontRead: when it was last read; frontMoved: what is in front changed
	// then, and the pane has not been captured since.
	frontUntil time.Time
	frontRead  time.Time
	frontMoved bool
	// dueLooked: the last look made at or after a time the watcher said it was due. A
	// due time not after it was looked at then, and is looked at again on the grid.
	dueLooked time.Time
	// lost: its last capture did not arrive (tmux failed it): what the watcher holds is
	// older than captured says, and it is never unchanged until a capture arrives.
	lost bool
}

// nextFront is when the pane's foreground is to be read again; false while it is not
// watched.
func (pw *paneWatch) nextFront() (time.Time, bool) {
	if !pw.frontRead.Before(pw.frontUntil) {
		return time.Time{}, false
	}
	return pw.frontRead.Add(foregroundEvery), true
}

// print records one %output of size bytes and shape sh (cut: a flood's head only).
func (pw *paneWatch) print(now time.Time, sh uint64, size int, cut bool) {
	if pw.lastOut.IsZero() || now.Sub(pw.lastOut) >= printsAgain {
		// A new run: what the last one printed says nothing of this one.
		pw.shapes, pw.fresher, pw.bigBefore = pw.shapes[:0], 0, false
	}
	pw.lastOut = now
	if now.Sub(pw.second) >= time.Second {
		pw.second, pw.perSecond = now, 0
	}
	pw.perSecond++
	if !pw.resumed.IsZero() {
		// Its first output since it was continued: printing again this soon after its
		// screen last changed, it floods or streams as before, and is paused at once
		// (not after liveRate notifications more).
		pw.pauseIt = pw.pauseIt || now.Sub(pw.resumed) < printsAgain
		pw.resumed = time.Time{}
	}
	if pw.printed.IsZero() {
		pw.printed = now
		pw.held = time.Time{} // it moves: stillness seen while it sat unpaused is over
	}
	pw.chunks++
	pw.bytes += size
	if cut || !pw.shapes.has(sh) {
		pw.fresh = true
	}
	if len(pw.unlearned) < maxShapes && !slices.Contains(pw.unlearned, sh) {
		pw.unlearned = append(pw.unlearned, sh)
	}
	// Only new output counts against freshLooks: an animation of as many frames is
	// learnt by then, and its next frame repeats the first.
	if cut || pw.floods() || (pw.fresh && pw.fresher >= freshLooks) || pw.perSecond > liveRate {
		pw.pauseIt = true
	}
}

// floods: what it printed since its last look is a flood: many pieces and many bytes
// (a cat of a big file), or a whole screen's worth after a look that had one too (a
// screen redrawn frame after frame). A new screen drawn once (a dialog after a spinner,
// which tmux may hand on in several notifications) is a change, and is captured.
func (pw *paneWatch) floods() bool {
	return (pw.chunks >= floodChunks && pw.bytes >= openFlood) || (pw.bytes >= floodBytes && pw.bigBefore)
}

// repeats: everything the pane printed since its last look has a shape it printed, and
// was captured after, earlier in this run.
func (pw *paneWatch) repeats() bool {
	return !pw.printed.IsZero() && !pw.fresh && len(pw.shapes) > 0
}

// looked resets what the pane printed since its last look: skipped, or captured at now.
func (pw *paneWatch) looked(now time.Time, capture bool) {
	if capture {
		if pw.fresh && !pw.printed.IsZero() {
			pw.fresher++
		}
		pw.captured, pw.skipped, pw.frontMoved = now, false, false
		pw.learning = append(pw.learning[:0], pw.unlearned...)
	} else {
		pw.fresher, pw.skipped, pw.movedAt = 0, true, pw.lastOut
	}
	pw.bigBefore = pw.bytes >= floodBytes
	pw.printed, pw.chunks, pw.bytes, pw.fresh, pw.pauseIt = time.Time{}, 0, 0, false, false
	pw.unlearned = pw.unlearned[:0]
}

// nextLook is when the pane wants capturing because it printed, is paused (active), or
// stopped after output that was skipped; false when it wants nothing.
func (pw *paneWatch) nextLook(active bool) (time.Time, bool) {
	if pw.frontMoved {
		return pw.frontRead, true
	}
	if pw.printed.IsZero() && !active {
		if pw.skipped {
			return pw.lastOut.Add(printsAgain), true
		}
		return time.Time{}, false
	}
	// Every paused pane is looked at on the same clock, so they share one round trip.
	at := keepMonotonic(pw.captured, pw.captured.Truncate(lookEvery).Add(lookEvery))
	if !pw.printed.IsZero() && pw.printed.Add(debounce).After(at) {
		at = pw.printed.Add(debounce)
	}
	return at, true
}

// unchanged: the pane shows what its last capture showed, as far as its relayed output
// can tell: it was captured, printed nothing since (none skipped either), its foreground
// stayed, it is live for every client (a paused pane prints unseen), and an output client
// of its session is attached to tell. Called with o.mu held, on the looking goroutine.
func (o *ControlMode) unchanged(p tmux.Pane, pw *paneWatch) bool {
	if o.pausedFor(p.ID) || pw.captured.IsZero() || pw.lost || !pw.printed.IsZero() || pw.skipped || pw.frontMoved {
		return false
	}
	oc, ok := o.sessions[p.SessionID]
	return ok && oc.name != "" && oc.alive() // gone: nothing relays its output until the next list
}

// dueNew: at, a time the watcher says the pane is due, has not been looked at yet.
func (pw *paneWatch) dueNew(at time.Time) bool { return at.After(pw.dueLooked) }

// keptDue is when a due time the watcher keeps after its look is looked at again: on the
// grid, a grid step after that look at the earliest, so a time that never passes costs a
// capture every lookGrid, not one per round trip.
func (pw *paneWatch) keptDue(at time.Time) time.Time {
	if floor := pw.dueLooked.Add(lookGrid); at.Before(floor) {
		at = floor
	}
	return at
}

// quiet: the pane has held still long enough to be let go live again (see stillFor).
func (pw *paneWatch) quiet() bool {
	return !pw.held.IsZero() && pw.seen.Sub(pw.held) >= stillFor
}

// saw records the capture of the pane made by the look at pw.captured, and learns the
// shapes that came before it. (Its output resets held too: see print.)
func (pw *paneWatch) saw(screen string) {
	pw.lost = false
	if screen != pw.screen || pw.held.IsZero() {
		pw.held = pw.captured
	}
	pw.screen, pw.seen = screen, pw.captured
	pw.shapes.learn(pw.learning)
	pw.learning = pw.learning[:0]
}

// watchOf returns the pane's record, making it if new. Called with o.mu held.
func (o *ControlMode) watchOf(pane string) *paneWatch {
	pw, ok := o.watch[pane]
	if !ok {
		pw = &paneWatch{}
		o.watch[pane] = pw
	}
	return pw
}

// nextLook is when the next look is due: a structure change now; a pane that printed
// or is paused at its time; a pane the watcher says is due; a pane whose foreground is
// to be read; the follow-up of an event; the reconcile.
func (o *ControlMode) nextLook(due Due) time.Time {
	next := o.lastFull.Add(reconcile)
	if !o.followUp.IsZero() && o.followUp.Before(next) {
		next = o.followUp
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.structure {
		return o.Now()
	}
	var offGrid time.Time // the first due time not looked at yet: looked at when it comes
	for _, p := range o.panes {
		if p.Dead {
			continue // nothing to capture: waiting for it would spin
		}
		pw := o.watchOf(p.ID)
		at, ok := due[p.ID]
		switch {
		case ok && pw.dueNew(at):
			if offGrid.IsZero() || at.Before(offGrid) {
				offGrid = at
			}
		case ok && pw.keptDue(at).Before(next):
			next = pw.keptDue(at)
		}
		if at, ok := pw.nextLook(o.pausedFor(p.ID)); ok && at.Before(next) {
			next = at
		}
		if at, ok := pw.nextFront(); ok && at.Before(next) && o.shellInFront(p.ID) {
			next = at
		}
	}
	if next = onGrid(next); !offGrid.IsZero() && offGrid.Before(next) {
		return offGrid
	}
	return next
}

// onGrid is the first multiple of lookGrid at or after t.
func onGrid(t time.Time) time.Time {
	g := t.Truncate(lookGrid)
	if g.Before(t) {
		g = g.Add(lookGrid)
	}
	return keepMonotonic(t, g)
}

// keepMonotonic is g, a time Truncate made from t, with t's monotonic clock reading.
// Truncate drops it, and a wait for a wall-clock time, compared with monotonic ones,
// spins after a suspend or a clock step (the monotonic clock stands still meanwhile).
func keepMonotonic(t, g time.Time) time.Time { return t.Add(g.Sub(t)) }

// look is one batch of captures: the panes, and the commands that continue those of
// them that have gone quiet (sent first, through the same client, so nothing a pane
// prints after its capture goes unnoticed); and whether it skipped any pane's output.
type look struct {
	skipped bool
	panes   []string
	// printed: of the panes, those that printed since their last look while relayed,
	// and when they last did (Frame.Printed).
	printed map[string]time.Time
	// unchanged: due panes that printed nothing since their last capture, not captured
	// again (Frame.Unchanged).
	unchanged map[string]bool
	continues [][]string
	resumed   []pauseKey // the pauses the continues end
}

// toCapture picks the panes to capture now: every live pane on a full look; else those
// whose time has come, give or take gather, but for those that only repeated shapes
// (skipped).
func (o *ControlMode) toCapture(now time.Time, due Due, full bool) look {
	o.mu.Lock()
	defer o.mu.Unlock()
	soon := now.Add(gather)
	var l look
	for _, p := range o.panes {
		if p.Dead {
			continue
		}
		pw := o.watchOf(p.ID)
		paused := o.pausedFor(p.ID)
		at, wants := pw.nextLook(paused)
		dueAt, isDue := due[p.ID]
		first := isDue && pw.dueNew(dueAt)
		if isDue && !first {
			dueAt = pw.keptDue(dueAt)
		}
		arrived := isDue && !now.Before(dueAt)
		unchanged := o.unchanged(p, pw)
		if arrived {
			pw.dueLooked = now
			if first && !full && unchanged {
				if l.unchanged == nil {
					l.unchanged = map[string]bool{}
				}
				l.unchanged[p.ID] = true
				continue
			}
		}
		// A pane captured anyway is captured for a due time that comes within gather too;
		// one that printed nothing is read again only once the time has come.
		isDue = isDue && !dueAt.After(soon) && (arrived || !unchanged)
		wants = wants && !at.After(soon)
		switch {
		case full || isDue || pw.frontMoved || (wants && !pw.repeats()) || (wants && paused):
			l.panes = append(l.panes, p.ID)
			if !paused && !pw.printed.IsZero() {
				if l.printed == nil {
					l.printed = map[string]time.Time{}
				}
				l.printed[p.ID] = pw.lastOut
			}
			pw.looked(now, true)
		case wants:
			pw.looked(now, false)
			l.skipped = true
		}
	}
	o.continueQuiet(&l)
	return l
}

// sawScreens records what a look of panes captured (screens: those whose capture
// arrived), and returns the panes that moved unseen since the last frame, and when they
// last did (Frame.Moved; nil: none).
func (o *ControlMode) sawScreens(panes []string, screens map[string]string) map[string]time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lostCaptures(panes, screens)
	for id, sc := range screens {
		o.watchOf(id).saw(sc)
	}
	var moved map[string]time.Time
	for id, pw := range o.watch {
		if !pw.movedAt.IsZero() {
			if moved == nil {
				moved = map[string]time.Time{}
			}
			moved[id], pw.movedAt = pw.movedAt, time.Time{}
		}
	}
	return moved
}

// lostCaptures marks the panes of a look whose capture did not arrive (in no screen).
// Called with o.mu held.
func (o *ControlMode) lostCaptures(panes []string, screens map[string]string) {
	for _, id := range panes {
		if _, ok := screens[id]; !ok {
			o.watchOf(id).lost = true
		}
	}
}

// printedSinceLook drops from printed the panes that printed again between their look
// and its capture: their screens may hold that output, later than the time printed says.
func (o *ControlMode) printedSinceLook(printed map[string]time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for id := range printed {
		if !o.watchOf(id).printed.IsZero() {
			delete(printed, id)
		}
	}
}

// forgetGone drops what is known of panes that were listed before and are not now. A
// pane not listed yet may have printed already (its list was sent before it existed):
// its record and pause stay. Called with o.mu held.
func (o *ControlMode) forgetGone(prev []tmux.Pane) {
	gone := map[string]bool{}
	for _, p := range prev {
		gone[p.ID] = true
	}
	for _, p := range o.panes {
		delete(gone, p.ID)
	}
	for id := range gone {
		delete(o.watch, id)
	}
	for k := range o.pauses {
		if gone[k.pane] {
			delete(o.pauses, k)
		}
	}
}

// readFronts reads the foreground of the panes watched for a command starting whose time
// has come, and marks those whose group in front changed for capture now.
func (o *ControlMode) readFronts(now time.Time) {
	soon := now.Add(gather)
	o.mu.Lock()
	var due []tmux.Pane
	for _, p := range o.panes {
		if at, ok := o.watchOf(p.ID).nextFront(); ok && !at.After(soon) && !p.Dead && o.shellInFront(p.ID) {
			due = append(due, p)
		}
	}
	o.mu.Unlock()
	if len(due) == 0 {
		return
	}
	moved := make([]bool, len(due))
	for i, p := range due { // no lock: /proc reads, and output events must not wait
		_, moved[i] = o.fronts.read(p, false)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, p := range due {
		pw := o.watchOf(p.ID)
		pw.frontRead = now
		pw.frontMoved = pw.frontMoved || moved[i]
	}
}

// shellInFront: the pane's foreground was last read led by a shell, or not read yet, or
// there is no Shell to tell. Only the looking goroutine calls it (fronts is its own).
func (o *ControlMode) shellInFront(pane string) bool {
	pf := o.fronts.panes[pane]
	return o.Shell == nil || pf == nil || pf.name == "" || o.Shell(strings.TrimPrefix(pf.name, "-"))
}

// stampFronts reads the foreground of the panes a look captured (foregrounds.stamp),
// keeps the commands it read as the panes' until tmux lists them again, and returns the
// panes and foregrounds for the frame.
func (o *ControlMode) stampFronts(screens map[string]string, full bool) ([]tmux.Pane, map[string]proc.Foreground) {
	panes, fronts := o.fronts.stamp(o.panes, screens, full) // only this goroutine writes o.panes
	now := o.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.panes = panes
	for id := range fronts {
		o.watchOf(id).frontRead = now
	}
	return panes, fronts
}
