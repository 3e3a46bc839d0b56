// Package control speaks tmux's control mode (tmux -C): a client whose stdin takes
// commands and whose stdout carries their replies, each in a %begin/%end block, and
// notifications (%output, %window-add, %sessions-changed, ...). Commands sent this way
// cost no fork, and output notifications say which pane moved as it moves.
package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"

	"github.com/paneherd/paneherd/internal/tmux"
)

// ErrClosed is returned by Run once the control client has exited (its session was
// destroyed, the server went away, or Close was called).
var ErrClosed = errors.New("control client closed")

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
}

// Client is one control-mode client attached to a session.
type Client struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events func(Event)

	mu      sync.Mutex
	pending []chan Reply // one per command written, in order
	closed  bool
	done    chan struct{}
}

// Attach starts `tmux -C attach-session -t target -f flags`. Flags: ignore-size, so the
// client's size never resizes the user's windows (and never send refresh-client -C);
// no-output for a client used only for commands; pause-after=N so a slow reader gets
// %pause instead of being disconnected. events receives every notification, from the
// reading goroutine: it must not block.
func Attach(s tmux.Server, target, flags string, events func(Event)) (*Client, error) {
	cmd := exec.Command("tmux", s.Args("-C", "attach-session", "-t", target, "-f", flags)...)
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
	c := &Client{cmd: cmd, stdin: stdin, events: events, done: make(chan struct{})}
	go c.read(stdout)
	return c, nil
}

// Run sends commands, one per line, and returns their replies in order.
func (c *Client) Run(ctx context.Context, cmds [][]string) ([]Reply, error) {
	waits := make([]chan Reply, len(cmds))
	var b strings.Builder
	for i, cmd := range cmds {
		waits[i] = make(chan Reply, 1)
		b.WriteString(line(cmd))
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.pending = append(c.pending, waits...)
	_, err := io.WriteString(c.stdin, b.String())
	c.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("control: write: %w", err)
	}
	replies := make([]Reply, len(cmds))
	for i, w := range waits {
		select {
		case r, ok := <-w:
			if !ok {
				return nil, ErrClosed
			}
			replies[i] = r
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return replies, nil
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

// Close detaches the client.
func (c *Client) Close() error {
	c.stdin.Close() // tmux detaches a control client whose stdin ends
	<-c.done
	return nil
}

// read parses stdout: reply blocks go to the waiting commands, the rest are events.
func (c *Client) read(stdout io.Reader) {
	defer c.finish()
	r := bufio.NewReaderSize(stdout, 64<<10)
	var block *strings.Builder
	var number string
	var ours bool
	for {
		raw, err := r.ReadString('\n')
		if err != nil {
			return
		}
		text := strings.TrimSuffix(raw, "\n")
		if block != nil {
			if end, failed := blockEnd(text, number); end {
				if ours {
					c.deliver(Reply{Output: block.String(), Failed: failed})
				}
				block = nil
				continue
			}
			block.WriteString(raw)
			continue
		}
		if f := strings.Fields(text); len(f) == 4 && f[0] == "%begin" {
			// Flags 1: a command of this client; 0: tmux's own (the attach).
			block, number, ours = &strings.Builder{}, f[2], f[3] == "1"
			continue
		}
		if strings.HasPrefix(text, "%") {
			c.events(parseEvent(text))
		}
	}
}

// blockEnd reports whether a line ends the current block: %end or %error with the same
// command number (a screen line that merely starts with "%end" does not).
func blockEnd(text, number string) (end, failed bool) {
	f := strings.Fields(text)
	if len(f) == 4 && (f[0] == "%end" || f[0] == "%error") && f[2] == number {
		return true, f[0] == "%error"
	}
	return false, false
}

func (c *Client) deliver(r Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return
	}
	c.pending[0] <- r
	c.pending = c.pending[1:]
}

// finish marks the client closed and fails every waiting command.
func (c *Client) finish() {
	c.mu.Lock()
	c.closed = true
	for _, w := range c.pending {
		close(w)
	}
	c.pending = nil
	c.mu.Unlock()
	c.cmd.Wait()
	close(c.done)
}

// parseEvent splits a notification; %output's data is dropped: only which pane moved
// matters here.
func parseEvent(text string) Event {
	head := text
	if strings.HasPrefix(text, "%output ") || strings.HasPrefix(text, "%extended-output ") {
		if i := strings.Index(text, " : "); i >= 0 && strings.HasPrefix(text, "%extended") {
			head = text[:i]
		} else {
			f := strings.SplitN(text, " ", 3)
			head = strings.Join(f[:min(2, len(f))], " ")
		}
	}
	f := strings.Fields(head)
	kind := strings.TrimPrefix(f[0], "%")
	if kind == "extended-output" {
		kind = "output"
	}
	return Event{Kind: kind, Args: f[1:]}
}
