package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/demo"
	"github.com/paneherd/paneherd/internal/termrec"
	"golang.org/x/sys/unix"
)

// step is one stretch of a player's show: the demo screens' name (and the state a
// watcher should see), and how long it holds.
type step struct {
	state string
	hold  time.Duration
}

// forever holds a step for the rest of the run.
const forever = 100 * 365 * 24 * time.Hour

// frameEvery is how often a busy screen animates.
const frameEvery = 400 * time.Millisecond

// schedules are what each player MODE shows, in turn.
var schedules = map[string][]step{
	"cycle": rounds(3, 2, 2, 2, 2),
	// About once a minute, as agents given real tasks change (issue 19's realistic fleet).
	"slow": rounds(50, 70, 30, 60, 40),
	// A change every 6-8 s (issue 19's side-by-side run).
	"steady": rounds(7, 8, 6, 7, 7),
	"idle":   {{"ready", forever}},
	"busy":   {{"busy", forever}},
}

// rounds is an agent's round of work, each state held so many seconds: READY, BUSY, a
// dialog, BUSY again, an error.
func rounds(ready, busy, dialog, busyAgain, failed time.Duration) []step {
	return []step{
		{"ready", ready * time.Second},
		{"busy", busy * time.Second},
		{"needs_confirmation", dialog * time.Second},
		{"busy", busyAgain * time.Second},
		{"error", failed * time.Second},
	}
}

// play runs in a benchmark pane: on its mode's schedule it replays an agent's recorded
// output (-redraw agents) or draws a pack's demo screens, or it prints a stream of output;
// it logs "unix-nanoseconds STATE" each time the screen it draws becomes a different
// state, right after drawing it.
func play(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("play LOG PACK MODE START (MODE: cycle, steady, slow, idle, busy, stream)")
	}
	logPath, pack, mode := args[0], args[1], args[2]
	var start int
	fmt.Sscan(args[3], &start)
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if mode == "stream" {
		// A shell printing a build log is busy, for as long as it prints.
		fmt.Fprintf(log, "%d BUSY\n", time.Now().UnixNano())
		return stream()
	}
	steps, ok := schedules[mode]
	if !ok {
		return fmt.Errorf("play: unknown mode %q", mode)
	}
	show := showFrames
	if os.Getenv(redrawEnv) == "agents" {
		show = newAgentPlayer(pack, start).show
		rawTerminal()
	}
	for i := start; ; i++ {
		st := steps[i%len(steps)]
		hold := st.hold
		if (mode == "slow" || mode == "steady") && i == start {
			// Panes that all started together would change together: each starts
			// somewhere into its first step.
			hold = hold * time.Duration(1+(start*37)%100) / 100
		}
		logged := func() { fmt.Fprintf(log, "%d %s\n", time.Now().UnixNano(), strings.ToUpper(st.state)) }
		if err := show(pack, st.state, time.Now().Add(hold), logged); err != nil {
			return err
		}
	}
}

// showFrames shows a state with the demo's screens of the pack until end, calling drawn
// once the first is on screen.
func showFrames(pack, state string, end time.Time, drawn func()) error {
	frames, err := demo.Frames(pack, state)
	if err != nil {
		return err
	}
	var shown string
	for f := 0; time.Now().Before(end); f++ {
		frame := frames[f%len(frames)]
		if f > 0 && os.Getenv(redrawEnv) == "lines" {
			redraw(shown, frame)
		} else {
			draw(frame)
		}
		shown = frame
		if f == 0 {
			drawn()
		}
		if len(frames) == 1 {
			// A still screen (a prompt, a dialog, an error) is drawn once, as the
			// CLIs do; only a busy one animates.
			time.Sleep(time.Until(end))
			break
		}
		time.Sleep(min(frameEvery, time.Until(end)))
	}
	return nil
}

// agentPlayer shows states with an agent's recorded output (-redraw agents).
type agentPlayer struct {
	agent  string
	turn   int            // where in each state's situations this player starts
	played map[string]int // state -> how often it was shown
	cache  map[string]termrec.Recording
}

func newAgentPlayer(agent string, turn int) *agentPlayer {
	return &agentPlayer{agent: agent, turn: turn, played: map[string]int{}, cache: map[string]termrec.Recording{}}
}

// show replays the recording of the state's next situation until end.
func (p *agentPlayer) show(_, state string, end time.Time, drawn func()) error {
	situation := p.next(state)
	rec, ok := p.cache[situation]
	if !ok {
		var err error
		if rec, err = recordingOf(p.agent, situation); err != nil {
			return err
		}
		p.cache[situation] = rec
	}
	replay(os.Stdout, rec, end, realClock, drawn)
	return nil
}

// rawTerminal stops the pane's terminal echoing what it is sent, as the CLIs' raw mode
// does, and reads it away: were a recording to hold a query (the cursor's place, the
// terminal's kind; the CLIs ask at start-up, before a recording begins), tmux's answer
// echoed would land on the screen.
func rawTerminal() {
	if t, err := unix.IoctlGetTermios(0, unix.TCGETS); err == nil {
		t.Lflag &^= unix.ECHO | unix.ICANON
		unix.IoctlSetTermios(0, unix.TCSETS, t)
	}
	go io.Copy(io.Discard, os.Stdin)
}

// next is the situation to play the state with this time.
func (p *agentPlayer) next(state string) string {
	list := situationsOf[state]
	p.played[state]++
	return list[(p.turn+p.played[state]-1)%len(list)]
}

// redrawEnv says how players draw (-redraw): "agents" replays the real CLIs' recorded
// output (agents.go); "lines" animates the demo's busy screens rewriting only the lines
// that changed from one frame to the next; "screen" clears and draws the whole screen
// each frame.
const redrawEnv = "PANEHERD_BENCH_REDRAW"

func draw(frame string) {
	os.Stdout.WriteString("\x1b[H\x1b[2J" + frame)
}

// redraw goes from the screen showing was to now, rewriting the lines that differ.
func redraw(was, now string) {
	old, cur := strings.Split(was, "\n"), strings.Split(now, "\n")
	var b strings.Builder
	for i := range max(len(old), len(cur)) {
		line := ""
		if i < len(cur) {
			line = strings.TrimSuffix(cur[i], "\r")
		}
		if i < len(old) && strings.TrimSuffix(old[i], "\r") == line {
			continue
		}
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", i+1, line)
	}
	os.Stdout.WriteString(b.String())
}

// stream prints about 30 KB/s of build-log-like output for ever.
func stream() error {
	line := strings.Repeat("compiling module with a long name and some flags -O2 ", 5)[:250] + "\r\n"
	for n := 0; ; n++ {
		for i := 0; i < 3; i++ {
			fmt.Printf("%06d %s", n, line[:len(line)-8])
		}
		time.Sleep(25 * time.Millisecond)
	}
}
