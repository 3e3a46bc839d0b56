package notify

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// The hostile notification as every protocol carries it (TestTerminalSequence).
const (
	hostileTitle = "api??\\?]0;pwned? needs; you"
	hostileBody  = "run $(touch x)? \"q\" \\\ufffd??[2J · in work:1.0"
)

func noSemicolon(s string) string { return strings.ReplaceAll(s, ";", ",") }

// aliasTerminfo makes TERM name a terminal whose terminfo this machine may lack (kitty's),
// as xterm-256color: tmux refuses a client whose TERM it cannot look up.
func aliasTerminfo(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "alias.src")
	if err := os.WriteFile(src, []byte(name+"|test alias,\n\tuse=xterm-256color,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tic", "-x", "-o", dir, src).CombinedOutput(); err != nil {
		t.Skipf("tic cannot compile a terminfo alias: %v: %s", err, out)
	}
	return dir
}

// TestTerminalReachesAttachedTerminals: auto picks each terminal's protocol from what
// tmux and the client's environment say, and the exact sequence, its texts cleaned,
// arrives in the terminal between tmux's own output.
func TestTerminalReachesAttachedTerminals(t *testing.T) {
	tests := []struct {
		name  string
		env   func(t *testing.T) []string
		why   string
		bytes string
	}{
		{"WezTerm by TERM_PROGRAM", func(*testing.T) []string { return []string{"TERM=xterm-256color", "TERM_PROGRAM=WezTerm"} },
			"osc777 to %s (TERM_PROGRAM=WezTerm in its environment)",
			"\x1b]777;notify;" + noSemicolon(hostileTitle) + ";" + noSemicolon(hostileBody) + "\x1b\\"},
		{"kitty by TERM", func(t *testing.T) []string {
			return []string{"TERM=xterm-kitty", "TERMINFO=" + aliasTerminfo(t, "xterm-kitty")}
		}, "osc99 to %s (TERM xterm-kitty)",
			"\x1b]99;i=" + kittyID(hostile().At) + ":u=2:d=0;" + hostileTitle + "\x1b\\" +
				"\x1b]99;i=" + kittyID(hostile().At) + ":p=body;" + hostileBody + "\x1b\\"},
		{"iTerm2 by LC_TERMINAL", func(*testing.T) []string { return []string{"TERM=xterm-256color", "LC_TERMINAL=iTerm2"} },
			"osc9 to %s (LC_TERMINAL=iTerm2 in its environment)",
			"\x1b]9;" + noSemicolon(hostileTitle+": "+hostileBody) + "\x1b\\"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tmuxtest.New(t)
			h.NewSession("work", "")
			c, term := attachRecorded(t, h, "work", tt.env(t)...)
			backend := Terminal{Server: h.Server, Mode: "auto"}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			line, err := backend.Describe(ctx)
			if want := strings.Replace(tt.why, "%s", c.TTY, 1); err != nil || line != want {
				t.Errorf("Describe = %q, %v; want %q", line, err, want)
			}
			if err := backend.Send(ctx, hostile()); err != nil {
				t.Fatalf("Send: %v", err)
			}
			got := term.waitFor(t, []byte(tt.bytes))
			if n, inside := onBoundaries(got, []byte(tt.bytes)); n != 1 || len(inside) > 0 {
				t.Errorf("the sequence arrived %d times, inside another at %v", n, inside)
			}
			for _, raw := range []string{"\x1b]0;pwned", "pwned\x07", "\x9c", "\u202e", "\x1b[2J · in"} {
				if bytes.Contains(got, []byte(raw)) {
					t.Errorf("the terminal received %q raw", raw)
				}
			}
		})
	}
}

// TestTerminalUnknownTerminalGetsNothing: auto sends nothing to a terminal it cannot name,
// and says so with what to do.
func TestTerminalUnknownTerminalGetsNothing(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", "")
	c, term := attachRecorded(t, h, "work", "TERM=xterm-256color")
	backend := Terminal{Server: h.Server, Mode: "auto"}
	ctx := context.Background()
	_, derr := backend.Describe(ctx)
	serr := backend.Send(ctx, hostile())
	for _, err := range []error{derr, serr} {
		if !errors.Is(err, ErrNoTerminal) || !strings.Contains(err.Error(), c.TTY+" (TERM xterm-256color and no answer to XTVERSION") ||
			!strings.Contains(err.Error(), "set @paneherd-notify-terminal to osc9, osc777 or osc99") {
			t.Errorf("err = %v, want ErrNoTerminal naming %s and what to do", err, c.TTY)
		}
	}
	// A marker written after Send, the same way: once the record has it, it has all that
	// Send could have written before.
	marker := []byte("\x1b]2;paneherd-marker\x1b\\")
	if err := writeClient(ctx, h.Server, c, marker); err != nil {
		t.Fatalf("write the marker: %v", err)
	}
	if got := term.waitFor(t, marker); bytes.Contains(got, []byte("pwned")) {
		t.Errorf("the unknown terminal got a notification: %q", tail(got, 300))
	}
}

// TestTerminalNoClient: with no client attached there is no terminal to ask.
func TestTerminalNoClient(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", "")
	err := Terminal{Server: h.Server, Mode: OSC9}.Send(context.Background(), hostile())
	if !errors.Is(err, ErrNoClient) {
		t.Errorf("Send = %v, want ErrNoClient", err)
	}
}

// spewLine is a line of colours, attributes and wide UTF-8, for printf with a foreground,
// a number and a background. Background colours 0-15 are left out: tmux writes them to its
// terminal in another form, which capture-pane shows apart.
const spewLine = `\033[3%dm line %d \033[1;4mbold\033[0m é ü 日本 \033[48;5;%dmbg\033[m`

// spew is a pane's command that prints n lines (-1: for ever) as fast as the shell can,
// pausing 50 ms after every burst lines (0: never), then a last line, and stays.
func spew(n, burst int) string {
	pause := ""
	if burst > 0 {
		pause = `[ $((i%` + strconv.Itoa(burst) + `)) = 0 ] && sleep 0.05; `
	}
	return `i=0; while [ ` + strconv.Itoa(n) + ` -lt 0 ] || [ $i -lt ` + strconv.Itoa(n) + ` ]; do ` +
		`printf '` + spewLine + `\n' $((i%8)) $i $((16+i%240)); i=$((i+1)); ` + pause + `done; echo SPEW-DONE; exec sleep 1000`
}

// flood is a pane's command that prints a line for ever faster than tmux reads it, so
// tmux never pauses its output.
const flood = `exec yes "$(printf '` + spewLine + `' 1 0 99)"`

// TestTerminalKeepsTmuxDrawingIntact: notifications sent again and again while tmux
// draws a flood of output to the same client land between tmux's sequences, never
// inside one, or wait; and what the terminal shows is what tmux drew. Written as soon as
// the tty took output, about one in twenty landed inside one of tmux's sequences. The
// terminal is an outer tmux, which renders the inner one's output and drops the
// passthrough it does not allow.
func TestTerminalKeepsTmuxDrawingIntact(t *testing.T) {
	h := tmuxtest.New(t)
	pane := h.NewSession("work", "exec sleep 1000")
	c, outer := attachInOuterTmux(t, h, "work")
	backend := Terminal{Server: h.Server, Mode: OSC777}
	line, err := backend.Describe(context.Background())
	if want := "osc777 through the outer tmux to " + c.TTY; err != nil || !strings.HasPrefix(line, want) {
		t.Errorf("Describe = %q, %v; want it to start %q", line, err, want)
	}
	flood, bursts := sendDuringOutput(t, h, pane, func(ctx context.Context) error { return backend.Send(ctx, hostile()) })
	h.Run("respawn-pane", "-k", "-t", pane, "echo calm; exec sleep 1000")
	if err := backend.Send(context.Background(), hostile()); err != nil {
		t.Fatalf("Send after the flood: %v", err)
	}
	sent := flood + bursts + 1
	outer.sameScreen(t, h, pane)
	seq := clientRoute{proto: OSC777, nested: true}.sequence(Outbound(hostile()))
	got := outer.record.waitFor(t, seq)
	if n, inside := onBoundaries(got, seq); n != sent || len(inside) > 0 {
		t.Errorf("%d sent, %d arrived, %d inside another sequence or character (at %v)", sent, n, len(inside), inside)
		for _, at := range inside {
			t.Logf("at %d: %q", at, got[max(0, at-80):at+20])
		}
	}
	t.Logf("%d tries during the flood, %d delivered; %d during the bursts (%d bytes of tmux output)", floodTries, flood, bursts, len(got))
}

// floodTries is how many sends sendDuringOutput tries in a flood: enough that, written
// blindly, some would land inside one of tmux's sequences.
const floodTries = 60

// burstSends is how many sends sendDuringOutput makes while a pane prints in bursts.
const burstSends = 10

// sendDuringOutput runs send floodTries times, each with a 30 ms deadline, while pane
// prints without a break (a flood: tmux never pauses, so nothing may be written but
// between its sequences), then burstSends times while it prints in bursts, each with a
// deadline of seconds: each must go out, in the next pause however slow the machine (a
// try of 30 ms fits a 50 ms pause only when forking tmux twice is quick). It returns how
// many sends succeeded in each.
func sendDuringOutput(t *testing.T, h *tmuxtest.Handle, pane string, send func(context.Context) error) (inFlood, inBursts int) {
	t.Helper()
	h.Run("respawn-pane", "-k", "-t", pane, flood)
	for i := 0; i < floodTries; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		err := send(ctx)
		<-ctx.Done() // one try in each 30 ms, however soon it went out
		cancel()
		switch {
		case err == nil:
			inFlood++
		case !errors.Is(err, context.DeadlineExceeded):
			t.Fatalf("send %d in the flood: %v", i, err)
		}
	}
	h.Run("respawn-pane", "-k", "-t", pane, spew(-1, 1000))
	for i := 0; i < burstSends; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := send(ctx)
		cancel()
		if err != nil {
			t.Fatalf("send %d in output with pauses: %v", i, err)
		}
		inBursts++
	}
	return inFlood, inBursts
}

// TestTerminalDeliversBetweenBursts: output with pauses, as an agent streams its answer,
// holds a notification only until the next pause: each lands between tmux's sequences.
func TestTerminalDeliversBetweenBursts(t *testing.T) {
	h := tmuxtest.New(t)
	pane := h.NewSession("work", spew(6000, 200))
	_, outer := attachInOuterTmux(t, h, "work")
	backend := Terminal{Server: h.Server, Mode: OSC9}
	sent := 0
	for !strings.Contains(h.Run("capture-pane", "-p", "-t", pane), "SPEW-DONE") {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := backend.Send(ctx, hostile()); err != nil {
			t.Fatalf("Send %d: %v", sent, err)
		}
		cancel()
		sent++
	}
	outer.sameScreen(t, h, pane)
	seq := clientRoute{proto: OSC9, nested: true}.sequence(Outbound(hostile()))
	n, inside := onBoundaries(outer.record.waitFor(t, seq), seq)
	if n != sent || len(inside) > 0 {
		t.Errorf("%d sent, %d arrived, %d inside another sequence", sent, n, len(inside))
	}
	if sent < 10 {
		t.Errorf("%d notifications during 30 bursts of output: each should wait for a pause at most", sent)
	}
	t.Logf("%d notifications during 30 bursts of output", sent)
}

// TestTerminalWaitsOutAFlood: output that never pauses keeps a notification out of the
// terminal until the deadline, which Send keeps, saying why; once it stops, it goes.
func TestTerminalWaitsOutAFlood(t *testing.T) {
	h := tmuxtest.New(t)
	pane := h.NewSession("work", flood)
	_, outer := attachInOuterTmux(t, h, "work")
	backend := Terminal{Server: h.Server, Mode: OSC9}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := backend.Send(ctx, hostile())
	if !errors.Is(err, errNeverQuiet) || time.Since(start) > 2*time.Second {
		t.Errorf("Send = %v after %s, want errNeverQuiet after 1s", err, time.Since(start))
	}
	h.Run("respawn-pane", "-k", "-t", pane, "echo calm; exec sleep 1000")
	if err := backend.Send(context.Background(), hostile()); err != nil {
		t.Fatalf("Send after the flood: %v", err)
	}
	seq := clientRoute{proto: OSC9, nested: true}.sequence(Outbound(hostile()))
	if n, inside := onBoundaries(outer.record.waitFor(t, seq), seq); n != 1 || len(inside) > 0 {
		t.Errorf("%d arrived, %d inside another sequence", n, len(inside))
	}
	outer.sameScreen(t, h, pane)
}

// TestTerminalStoppedTerminal: a terminal that reads nothing (stopped, a hung SSH link)
// fills its tty; Send gives up at its deadline, saying so, and holds nothing after.
func TestTerminalStoppedTerminal(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", flood)
	stoppedTerminal(t, h, "work")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := Terminal{Server: h.Server, Mode: OSC9}.Send(ctx, hostile())
	if !errors.Is(err, errNotReading) || time.Since(start) > 2*time.Second {
		t.Errorf("Send = %v after %s, want errNotReading after 1s", err, time.Since(start))
	}
}

// TestTerminalThroughOuterTmux: a client whose terminal is another tmux (tmux inside
// tmux, locally or over SSH) gets the sequence inside the outer tmux's passthrough, and
// the outer tmux's own terminal receives it as the protocol has it; auto finds kitty in
// the environment the inner client started in.
func TestTerminalThroughOuterTmux(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", "")
	c, outer := attachInOuterTmux(t, h, "work", "KITTY_WINDOW_ID=7")
	outer.Run("set-option", "-g", "allow-passthrough", "on")
	_, term := attachRecorded(t, outer.Handle, "outer", "TERM=xterm-256color")
	backend := Terminal{Server: h.Server, Mode: "auto"}
	line, err := backend.Describe(context.Background())
	want := "osc99 through the outer tmux to " + c.TTY + " (KITTY_WINDOW_ID in its environment; the outer tmux needs allow-passthrough on)"
	if err != nil || line != want {
		t.Errorf("Describe = %q, %v; want %q", line, err, want)
	}
	if err := backend.Send(context.Background(), hostile()); err != nil {
		t.Fatalf("Send: %v", err)
	}
	id := kittyID(hostile().At)
	seq := []byte("\x1b]99;i=" + id + ":u=2:d=0;" + hostileTitle + "\x1b\\\x1b]99;i=" + id + ":p=body;" + hostileBody + "\x1b\\")
	if n, inside := onBoundaries(term.waitFor(t, seq), seq); n != 1 || len(inside) > 0 {
		t.Errorf("the outer terminal got it %d times, %d inside another sequence", n, len(inside))
	}
}
