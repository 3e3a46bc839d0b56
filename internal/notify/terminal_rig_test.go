package notify

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// The terminals the terminal backend's tests attach clients in, each recording byte for
// byte what reaches it: a pty from script(1), or another tmux whose pane runs the client.

// recorder is a terminal made of a pty that script(1) gives a command, writing every
// byte the command's terminal receives to log.
type ttyRecorder struct {
	log string
}

// bytes is what the terminal has received so far.
func (r ttyRecorder) bytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(r.log)
	if err != nil {
		t.Fatalf("read the terminal's record: %v", err)
	}
	return b
}

// waitFor waits until the terminal has received want, and returns all it received.
func (r ttyRecorder) waitFor(t *testing.T, want []byte) []byte {
	t.Helper()
	var got []byte
	if !tmuxtest.Poll(10*time.Second, func() bool { got = r.bytes(t); return bytes.Contains(got, want) }) {
		t.Fatalf("the terminal never received %q; it has %q", want, tail(got, 600))
	}
	return got
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// inScript runs command (a shell line) in a pty recorded by script(1), in h's environment
// less what names the test's own terminal, until the test ends.
func inScript(t *testing.T, h *tmuxtest.Handle, command string) ttyRecorder {
	t.Helper()
	if out, _ := exec.Command("script", "--version").Output(); !strings.Contains(string(out), "util-linux") {
		t.Skip("script(1) from util-linux is needed for a recorded terminal")
	}
	r := ttyRecorder{log: filepath.Join(h.Dir, "terminal.log")}
	cmd := exec.Command("script", "-q", "-f", "-c", command, r.log)
	cmd.Env = withoutTerminal(h.Env())
	// script ends at the end of its input: a pipe held open keeps it up.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start script: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return r
}

// terminalVars name the terminal a process runs in; the test's own must not leak into
// the clients' environments.
var terminalVars = []string{"TERM_PROGRAM", "TERM_PROGRAM_VERSION", "LC_TERMINAL", "LC_TERMINAL_VERSION",
	"KITTY_WINDOW_ID", "WT_SESSION", "KONSOLE_VERSION"}

// withoutTerminal is env without TERM and terminalVars.
func withoutTerminal(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "TERM" && !slices.Contains(terminalVars, name) {
			out = append(out, kv)
		}
	}
	return out
}

// attachCommand is the shell line that attaches a client of h to session, with env (and
// none of terminalVars but those it sets) in the client's environment.
func attachCommand(h *tmuxtest.Handle, session string, env ...string) string {
	line := "exec env -u TMUX"
	for _, v := range terminalVars {
		line += " -u " + v
	}
	for _, kv := range env {
		line += " " + shellQuote(kv)
	}
	return line + " tmux -u -S " + shellQuote(h.Server.Socket) + " attach -t " + shellQuote(session)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// attachRecorded attaches a client of h to session in a script(1) terminal, with env (TERM
// and what a terminal sets) in the client's environment, and returns it once tmux lists it.
func attachRecorded(t *testing.T, h *tmuxtest.Handle, session string, env ...string) (Client, ttyRecorder) {
	t.Helper()
	r := inScript(t, h, attachCommand(h, session, env...))
	return onlyClient(t, h, func(Client) bool { return true }), r
}

// onlyClient waits until h has one client a person uses and ready says it is settled.
func onlyClient(t *testing.T, h *tmuxtest.Handle, ready func(Client) bool) Client {
	t.Helper()
	var got []Client
	var err error
	if !tmuxtest.Poll(10*time.Second, func() bool {
		got, err = h.Server.Clients(context.Background())
		return err == nil && len(got) == 1 && ready(got[0])
	}) {
		t.Fatalf("no settled client attached: %+v, %v", got, err)
	}
	return got[0]
}

// outerTmux is another tmux as the terminal of a client of the server under test: its
// pane runs the client and renders what the inner server draws there, and pipe-pane
// records every byte written to that client's tty.
type outerTmux struct {
	*tmuxtest.Handle
	pane   string
	record ttyRecorder
}

// attachInOuterTmux attaches a client of h to session in a pane of a new outer tmux of
// the same size, both without status lines: the outer pane shows exactly what h's pane
// shows. env is added to the client's environment.
func attachInOuterTmux(t *testing.T, h *tmuxtest.Handle, session string, env ...string) (Client, *outerTmux) {
	t.Helper()
	h.Run("set-option", "-g", "status", "off")
	o := &outerTmux{Handle: tmuxtest.New(t)}
	o.Run("set-option", "-g", "status", "off")
	o.record = ttyRecorder{log: filepath.Join(o.Dir, "pane.log")}
	o.pane = o.NewSession("outer", attachCommand(h, session, env...))
	o.Run("pipe-pane", "-O", "-t", o.pane, "cat >> "+shellQuote(o.record.log))
	// The inner tmux asks its terminal's version at attach: the outer one answers.
	c := onlyClient(t, h, func(c Client) bool { return c.TermType != "" })
	return c, o
}

// sameScreen waits until the outer pane shows what inner pane shows, colours and
// attributes included: what tmux drew reached its terminal intact.
func (o *outerTmux) sameScreen(t *testing.T, h *tmuxtest.Handle, inner string) {
	t.Helper()
	var drawn, shown string
	if !tmuxtest.Poll(15*time.Second, func() bool {
		drawn = h.Run("capture-pane", "-p", "-e", "-t", inner)
		shown = o.Run("capture-pane", "-p", "-e", "-t", o.pane)
		return drawn == shown
	}) {
		t.Fatalf("the terminal shows what tmux did not draw:\n--- tmux drew\n%s\n--- the terminal shows\n%s", drawn, shown)
	}
}

// onBoundaries finds seq in stream, the bytes a terminal received, and reports how often
// it is there and where it starts inside something else: another escape sequence or a
// UTF-8 character, which the terminal would have read differently.
func onBoundaries(stream, seq []byte) (count int, inside []int) {
	starts := map[int]bool{}
	for i := 0; ; {
		j := bytes.Index(stream[i:], seq)
		if j < 0 {
			break
		}
		starts[i+j] = true
		i += j + len(seq)
	}
	var p vtParser
	for i, b := range stream {
		if starts[i] {
			count++
			if !p.ground() {
				inside = append(inside, i)
			}
		}
		p.feed(b)
	}
	return count, inside
}

// vtParser follows a terminal's parser as far as needed to know whether it is between
// sequences and characters.
type vtParser struct {
	state    byte // 0 ground, 'e' after ESC, 'i' ESC intermediates, '[' CSI, 's' a string (OSC, DCS, APC, PM, SOS), 'x' ESC inside a string
	utf8Left int
}

func (p *vtParser) ground() bool { return p.state == 0 && p.utf8Left == 0 }

func (p *vtParser) feed(b byte) {
	switch p.state {
	case 0:
		p.ground8(b)
	case 'e':
		switch {
		case b == '[':
			p.state = '['
		case b == ']' || b == 'P' || b == '_' || b == '^' || b == 'X':
			p.state = 's'
		case b >= 0x20 && b <= 0x2f:
			p.state = 'i'
		case b != 0x1b:
			p.state = 0
		}
	case 'i':
		if b >= 0x30 && b <= 0x7e {
			p.state = 0
		}
	case '[':
		switch {
		case b == 0x1b:
			p.state = 'e'
		case b >= 0x40 && b <= 0x7e:
			p.state = 0
		}
	case 's':
		switch b {
		case 0x07:
			p.state = 0
		case 0x1b:
			p.state = 'x'
		}
	case 'x':
		// ST ends the string; tmux's passthrough doubles the ESCs inside its DCS.
		p.state = 's'
		if b == '\\' {
			p.state = 0
		}
	}
}

func (p *vtParser) ground8(b byte) {
	switch {
	case p.utf8Left > 0 && b&0xc0 == 0x80:
		p.utf8Left--
	case b == 0x1b:
		p.utf8Left, p.state = 0, 'e'
	case b >= 0xf0 && b <= 0xf7:
		p.utf8Left = 3
	case b >= 0xe0:
		p.utf8Left = 2
	case b >= 0xc0:
		p.utf8Left = 1
	default:
		p.utf8Left = 0
	}
}

// stoppedTerminal attaches a client to session from an outer tmux that is then stopped
// (SIGSTOP): a terminal that reads nothing, as a hung SSH link's; it goes on at the end.
func stoppedTerminal(t *testing.T, h *tmuxtest.Handle, session string) {
	t.Helper()
	_, outer := attachInOuterTmux(t, h, session)
	pid, err := strconv.Atoi(outer.Run("display-message", "-p", "#{pid}"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
}
