// Package controlmode speaks tmux's control mode (tmux -C): a client whose stdin takes
// commands and whose stdout carries their replies, each in a %begin/%end block, and
// notifications (%output, %window-add, %sessions-changed, ...). Commands sent this way
// cost no fork, and output notifications say which pane moved as it moves.
package controlmode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// ErrClosed is returned by Run and Send once the control client has exited (its session
// was destroyed, the server went away, or Close was called): nothing was sent.
var ErrClosed = errors.New("control client closed")

// ErrLost is returned by Run when the client exited after the commands were written but
// before tmux answered them all: they may have run.
var ErrLost = errors.New("control client exited before answering")

// Reply is the answer to one command.
type Reply struct {
	Output string
	Failed bool // %error: the output says why
}

// Event is a notification. Kind is its first word without the '%' ("output",
// "window-add", "sessions-changed", "pause", "exit", ...); Args the rest, split on spaces,
// data of %output left out.
type Event struct {
	Kind string
	Args []string
	// Data is what the pane printed, for "output" (%output and %extended-output), as tmux
	// escapes it (a byte below 32, and a backslash, as \ooo). It points into the
	// reader's buffer: valid only during the events call, never kept.
	Data []byte
	// Cut: the notification was longer than the reader's buffer, and Data is only its
	// head (a flood).
	Cut bool
}

// Client is one control-mode client attached to a session.
type Client struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	events func(Event)

	mu      sync.Mutex
	pending []func(Reply, bool) // one per command written, in order; false: never answered
	closed  bool
	done    chan struct{}

	attached chan struct{} // closed at the first %session-changed: the client is in its session
	counts   *Counts       // tallies commands and notifications; nil: none
}

// Attach starts `tmux -C attach-session -t target -f flags`. Flags: ignore-size, so the
// client's size never resizes the user's windows (and never send refresh-client -C);
// no-output for a client used only for commands; pause-after=N so a slow reader gets
// %pause instead of being disconnected. events receives every notification, from the
// reading goroutine: it must not block.
func Attach(s tmux.Server, target, flags string, events func(Event)) (*Client, error) {
	return AttachCounting(s, target, flags, events, nil)
}

// AttachCounting is Attach with the client's commands and notifications tallied in
// counts (nil: not tallied).
func AttachCounting(s tmux.Server, target, flags string, events func(Event), counts *Counts) (*Client, error) {
	cmd := exec.Command("tmux", s.Args("-C", "attach-session", "-t", target, "-f", flags)...)
	cmd.SysProcAttr = procAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("control: attach %s: %w", target, err)
	}
	c := &Client{cmd: cmd, stdin: stdin, stdout: stdout, events: events, done: make(chan struct{}), attached: make(chan struct{}), counts: counts}
	go c.read(stdout)
	// Until tmux has attached the client to its session, list-clients leaves it out and
	// commands it sends run for "the best client", which may be another one.
	select {
	case <-c.attached:
		return c, nil
	case <-c.done:
		return nil, fmt.Errorf("control: attach %s: %w", target, ErrClosed)
	case <-time.After(attachTimeout):
		c.Close()
		return nil, fmt.Errorf("control: attach %s: no %%session-changed in %s", target, attachTimeout)
	}
}

// attachTimeout bounds the wait for a new client to be attached.
const attachTimeout = 5 * time.Second

// Run sends commands, one per line, and returns their replies in order.
func (c *Client) Run(ctx context.Context, cmds [][]string) ([]Reply, error) {
	waits := make([]chan Reply, len(cmds))
	answers := make([]func(Reply, bool), len(cmds))
	for i := range cmds {
		w := make(chan Reply, 1)
		waits[i] = w
		answers[i] = func(r Reply, ok bool) {
			if ok {
				w <- r
			}
			close(w)
		}
	}
	if err := c.write(cmds, answers); err != nil {
		return nil, err
	}
	replies := make([]Reply, len(cmds))
	for i, w := range waits {
		select {
		case r, ok := <-w:
			if !ok {
				return nil, ErrLost
			}
			replies[i] = r
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return replies, nil
}

// Send sends one command without waiting: answer gets its reply on the reading
// goroutine (it must not block), or ok false if the client exits first.
func (c *Client) Send(cmd []string, answer func(r Reply, ok bool)) error {
	return c.write([][]string{cmd}, []func(Reply, bool){answer})
}

// write writes commands and queues what is to be done with their replies.
func (c *Client) write(cmds [][]string, answers []func(Reply, bool)) error {
	var b strings.Builder
	for _, cmd := range cmds {
		b.WriteString(line(cmd))
		c.counts.command(cmd[0])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.pending = append(c.pending, answers...)
	if _, err := io.WriteString(c.stdin, b.String()); err != nil {
		return fmt.Errorf("control: write: %w", err)
	}
	return nil
}

// line writes a command for tmux's parser: each argument quoted.
func line(cmd []string) string {
	var b strings.Builder
	b.WriteString(cmd[0])
	for _, a := range cmd[1:] {
		b.WriteByte(' ')
		b.WriteString(tmux.Quote(a))
	}
	b.WriteByte('\n')
	return b.String()
}

// Done is closed when the client has exited.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close detaches the client, and waits until it has exited: at most closeWait, then it
// is killed (a hung server never lets it go).
func (c *Client) Close() error {
	c.stdin.Close() // tmux detaches a control client whose stdin ends
	select {
	case <-c.done:
		return nil
	case <-time.After(closeWait):
	}
	// tmux hands a client's stdout to the server, which writes to it directly: with the
	// server hung, killing the client does not end the stream. Our end closed does.
	c.cmd.Process.Kill()
	c.stdout.Close()
	<-c.done
	return fmt.Errorf("control: the client did not detach within %s; killed", closeWait)
}

// closeWait bounds how long Close waits for tmux to let the client go.
const closeWait = 2 * time.Second

// read parses stdout: reply blocks go to the waiting commands, the rest are events.
// Output notifications make most of the stream and can be long: they are looked at in
// the reader's buffer, never copied whole.
func (c *Client) read(stdout io.Reader) {
	defer c.finish()
	r := bufio.NewReaderSize(stdout, 64<<10)
	var block *strings.Builder
	var number string
	var ours, attached bool
	for {
		raw, cut, err := readLine(r, block != nil)
		if err != nil {
			return
		}
		text := bytes.TrimSuffix(raw, []byte("\n"))
		if block != nil {
			if end, failed := blockEnd(text, number); end {
				if ours {
					c.deliver(Reply{Output: block.String(), Failed: failed})
				}
				block = nil
				continue
			}
			block.Write(raw)
			continue
		}
		if bytes.HasPrefix(text, []byte("%begin ")) {
			if f := strings.Fields(string(text)); len(f) == 4 {
				// Flags 1: a command of this client; 0: tmux's own (the attach).
				block, number, ours = &strings.Builder{}, f[2], f[3] == "1"
			}
			continue
		}
		if len(text) > 0 && text[0] == '%' {
			ev := parseEvent(text)
			ev.Cut = cut
			c.counts.notification(ev.Kind, len(raw))
			if ev.Kind == "session-changed" && !attached {
				attached = true
				close(c.attached)
			}
			c.events(ev)
		}
	}
}

// readLine returns the next line, valid until the next read. A line longer than the
// buffer is kept whole inside a reply (whole); outside one it is a notification, whose
// head says all that is needed, and the rest is skipped (cut).
func readLine(r *bufio.Reader, whole bool) (line []byte, cut bool, err error) {
	line, err = r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, false, err
	}
	kept := append([]byte(nil), line[:min(len(line), maxHead)]...)
	if whole {
		kept = append(kept[:0], line...)
	}
	for err == bufio.ErrBufferFull {
		line, err = r.ReadSlice('\n')
		if whole {
			kept = append(kept, line...)
		}
	}
	return kept, !whole, err
}

// maxHead is how much of an over-long notification is kept: its name and pane.
const maxHead = 256

// blockEnd reports whether a line ends the current block: %end or %error with the same
// command number (a screen line that merely starts with "%end" does not).
func blockEnd(text []byte, number string) (end, failed bool) {
	if !bytes.HasPrefix(text, []byte("%end ")) && !bytes.HasPrefix(text, []byte("%error ")) {
		return false, false
	}
	f := strings.Fields(string(text))
	if len(f) == 4 && f[2] == number {
		return true, f[0] == "%error"
	}
	return false, false
}

func (c *Client) deliver(r Reply) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	answer := c.pending[0]
	c.pending = c.pending[1:]
	c.mu.Unlock()
	answer(r, true)
}

// finish marks the client closed and fails every waiting command.
func (c *Client) finish() {
	c.mu.Lock()
	c.closed = true
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, answer := range pending {
		answer(Reply{}, false)
	}
	c.cmd.Wait()
	close(c.done)
}

// parseEvent splits a notification. %output and %extended-output are both "output":
// the pane, and what it printed (Data, not copied).
func parseEvent(text []byte) Event {
	if rest, ok := bytes.CutPrefix(text, []byte("%output ")); ok {
		pane, data, _ := bytes.Cut(rest, []byte(" "))
		return Event{Kind: "output", Args: []string{string(pane)}, Data: data}
	}
	if rest, ok := bytes.CutPrefix(text, []byte("%extended-output ")); ok {
		// %extended-output %PANE AGE ... : DATA
		pane, _, _ := bytes.Cut(rest, []byte(" "))
		_, data, _ := bytes.Cut(rest, []byte(" : "))
		return Event{Kind: "output", Args: []string{string(pane)}, Data: data}
	}
	f := strings.Fields(string(text))
	return Event{Kind: strings.TrimPrefix(f[0], "%"), Args: f[1:]}
}

// Unescape returns what the pane printed from an output event's Data, undoing tmux's
// escaping: each byte below 32, and the backslash, arrives as a backslash and three octal
// digits.
func Unescape(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		if data[i] == '\\' && i+3 < len(data) && octal(data[i+1:i+4]) {
			out = append(out, (data[i+1]-'0')<<6|(data[i+2]-'0')<<3|(data[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, data[i])
	}
	return out
}

func octal(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '7' {
			return false
		}
	}
	return true
}
