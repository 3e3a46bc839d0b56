package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paneherd/paneherd/internal/tmux"
)

// clientWrite is a sequence for one client's terminal.
type clientWrite struct {
	client Client
	seq    []byte
}

// writeClients writes each sequence to its client's terminal, all at once: one client
// whose terminal waits must not hold the others. It returns how many were written, and
// why the others were not.
func writeClients(ctx context.Context, s tmux.Server, writes []clientWrite) (int, []error) {
	errs := make(chan error, len(writes))
	for _, w := range writes {
		go func() { errs <- writeClient(ctx, s, w.client, w.seq) }()
	}
	var failed []error
	for range writes {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	return len(writes) - len(failed), failed
}

// writeClient writes seq to client c's terminal, past tmux: tmux has no command that
// sends bytes to a client, and its passthrough carries only a pane's output, to the
// clients showing that pane. The daemon runs as the clients' user, so it opens the
// client's tty, as a program in a pane would open its own. Every write paneherd makes
// to a client's terminal, a bell too, goes this way.
//
// tmux writes to that tty too, from its own buffer. The kernel keeps each write() whole
// against other writers of the tty, but tmux's own writes stop where the tty is full,
// often inside a sequence: in a flood of output, about one write in twenty written at a
// random moment landed inside one of tmux's (TestTerminalKeepsTmuxDrawingIntact), and
// the terminal would show the rest of tmux's sequence as text. So seq waits until tmux is
// quiet for the client (waitQuiet): whatever tmux queued is then out, and seq, written
// whole (writeWhole), lands between two of its sequences.
func writeClient(ctx context.Context, s tmux.Server, c Client, seq []byte) error {
	giveBack, err := takeTurn(ctx, c.TTY)
	if err != nil {
		return fmt.Errorf("%s: %w", c.TTY, err)
	}
	fd, err := openTTY(c.TTY)
	if err != nil {
		giveBack()
		return fmt.Errorf("%s: %w", c.TTY, err)
	}
	done := func() { unix.Close(fd); giveBack() }
	if err := waitQuiet(ctx, s, c, fd); err != nil {
		done()
		return fmt.Errorf("%s: %w", c.TTY, err)
	}
	if err := writeWhole(ctx, fd, seq, done); err != nil {
		return fmt.Errorf("%s: %w", c.TTY, err)
	}
	return nil
}

// errBusy: an earlier write to the same terminal had not ended by the deadline.
var errBusy = errors.New("an earlier write to its terminal has not ended (it is not reading its output, or tmux never pauses it)")

// ttyTurns holds one turn per tty: a write to a terminal waits for the one before it. A
// write blocked on a terminal that reads nothing (a hung SSH link) holds a goroutine
// and an fd until the terminal reads again or hangs up; with turns that is one per
// terminal, however many notifications follow, each giving up at its deadline. Keyed by
// the tty's path, of which a machine has a few.
var ttyTurns = struct {
	sync.Mutex
	turns map[string]chan struct{}
}{turns: map[string]chan struct{}{}}

// takeTurn waits for the turn of the tty at path until ctx ends, and returns what gives
// it back.
func takeTurn(ctx context.Context, path string) (giveBack func(), err error) {
	ttyTurns.Lock()
	turn := ttyTurns.turns[path]
	if turn == nil {
		turn = make(chan struct{}, 1)
		ttyTurns.turns[path] = turn
	}
	ttyTurns.Unlock()
	select {
	case turn <- struct{}{}:
		return func() { <-turn }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", errBusy, ctx.Err())
	}
}

// openTTY opens the terminal device at path to write to it.
func openTTY(path string) (int, error) {
	// O_NOCTTY: the daemon is a session leader without a terminal, which opening one
	// would otherwise make its own.
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is not a terminal", path)
	}
	return fd, nil
}

// quietFor is how long tmux must queue nothing for a client, its tty taking output all
// along, before a sequence is written there: tmux writes what it holds as soon as the
// tty takes it, within a turn of its event loop, far less than this.
const quietFor = 20 * time.Millisecond

// Why a client's terminal got nothing before the deadline.
var (
	errNotReading = errors.New("its terminal is not reading its output (stopped, or a hung SSH connection)")
	errNeverQuiet = errors.New("tmux never paused its output to it (a pane it shows prints without a break)")
)

// waitQuiet waits until tmux has queued nothing for c (client_written, the bytes tmux
// has queued for it, unchanged) for quietFor, and the tty at fd took output at both ends.
func waitQuiet(ctx context.Context, s tmux.Server, c Client, fd int) error {
	var prev *outputSample
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-ctx.Done():
			return gaveUp(prev, ctx.Err())
		}
		cur, err := sampleOutput(ctx, s, c, fd)
		if err != nil {
			if ctx.Err() != nil {
				return gaveUp(prev, ctx.Err())
			}
			return err
		}
		if prev != nil && prev.writable && cur.writable && cur.written == prev.written {
			return nil
		}
		prev = &cur
		timer.Reset(quietFor)
	}
}

// gaveUp is why waitQuiet ended with ctx (err), by what it saw last.
func gaveUp(last *outputSample, err error) error {
	switch {
	case last == nil:
		return err
	case !last.writable:
		return fmt.Errorf("%w: %w", errNotReading, err)
	}
	return fmt.Errorf("%w: %w", errNeverQuiet, err)
}

// outputSample is how much tmux has queued for a client, and whether its tty takes output.
type outputSample struct {
	written  string
	writable bool
}

func sampleOutput(ctx context.Context, s tmux.Server, c Client, fd int) (outputSample, error) {
	out, err := s.Run(ctx, nil, "display-message", "-p", "-c", c.Name, "#{client_written}")
	if err != nil {
		return outputSample{}, fmt.Errorf("ask tmux what it wrote to the client: %w", err)
	}
	writable, err := takesOutput(fd)
	return outputSample{written: strings.TrimSpace(out), writable: writable}, err
}

// takesOutput reports whether the tty at fd has room for output now.
func takesOutput(fd int) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	n, err := unix.Poll(fds, 0)
	switch {
	case errors.Is(err, unix.EINTR):
		return false, nil
	case err != nil:
		return false, err
	case n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0:
		return false, errors.New("its terminal hung up")
	}
	return n > 0 && fds[0].Revents&unix.POLLOUT != 0, nil
}

// writeWhole writes seq to fd, blocking, then calls done (which closes fd). Blocking: a
// non-blocking write() may take part of seq and leave the terminal inside it,
// swallowing what tmux writes next; a blocking one takes all the tty has room for,
// holding the tty's write lock meanwhile, and waits for room for the rest.
//
// No write starts after ctx's end, and one started before it counts, as it is done at
// once when the terminal takes output. One that is not done within writeGrace returns
// errNotReading, but goes on until the terminal reads or hangs up, holding its goroutine
// and fd meanwhile (one per terminal: ttyTurns): a sequence once started can only be
// finished.
func writeWhole(ctx context.Context, fd int, seq []byte, done func()) error {
	if err := unix.SetNonblock(fd, false); err != nil {
		done()
		return err
	}
	const toWrite, writing, abandoned = 0, 1, 2
	var state atomic.Int32
	written := make(chan error, 1)
	go func() {
		defer done()
		if ctx.Err() == nil && state.CompareAndSwap(toWrite, writing) {
			written <- writeSequence(ctx, fd, seq)
		}
	}()
	select {
	case err := <-written:
		return err
	case <-ctx.Done():
	}
	if state.CompareAndSwap(toWrite, abandoned) {
		return ctx.Err()
	}
	select {
	case err := <-written:
		return err
	case <-time.After(writeGrace):
		return fmt.Errorf("%w: %w", errNotReading, ctx.Err())
	}
}

// writeGrace is how long a write begun as the deadline came may take: a terminal that
// reads takes a sequence at once.
const writeGrace = 100 * time.Millisecond

// writeSequence writes all of seq to fd: a blocking write() that a signal interrupts
// (the daemon's children end with SIGCHLD) returns what it wrote so far, and the rest
// follows in another. Past ctx's end it writes, instead of the rest, only what ends the
// strings seq opened, so that the terminal is not left inside one, reading what tmux
// draws next as its text.
func writeSequence(ctx context.Context, fd int, seq []byte) error {
	n, err := writeAll(fd, seq, func() bool { return ctx.Err() != nil })
	if n == 0 || n == len(seq) {
		return err
	}
	writeAll(fd, ending(seq[:n]), func() bool { return false })
	if err == nil {
		err = fmt.Errorf("wrote %d of %d bytes, then ended the sequence: %w", n, len(seq), ctx.Err())
	}
	return err
}

// writeAll writes b to fd, again after a signal or a partial write, until all of it is
// written, write() fails, or stop, asked after each write(), says to give up. It
// returns how much of b it wrote.
func writeAll(fd int, b []byte, stop func() bool) (int, error) {
	written := 0
	for {
		n, err := unix.Write(fd, b[written:])
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return written, err
		case n <= 0:
			return written, io.ErrShortWrite
		default:
			written += n
		}
		if written == len(b) || stop() {
			return written, nil
		}
	}
}

// ending is what ends the strings left open by written, the start of a sequence cut
// short: ST, or only its '\' where an ESC has started it. In tmux's passthrough, whose
// ESCs are doubled, the sequence inside is ended so, doubled, and then the passthrough:
// the outer tmux passes on only a passthrough that ends, as it is.
func ending(written []byte) []byte {
	inside, nested := bytes.CutPrefix(written, []byte(passthroughStart))
	if !nested {
		return stringEnd(trailingESCs(written))
	}
	escs := trailingESCs(inside)
	var end []byte
	if escs%2 == 1 { // half of a doubled ESC: the other half
		end, escs = append(end, 0x1b), escs+1
	}
	end = append(end, bytes.ReplaceAll(stringEnd(escs/2), []byte{0x1b}, []byte{0x1b, 0x1b})...)
	return append(end, st...)
}

// stringEnd ends a string after escs ESCs: an odd number has started its ST.
func stringEnd(escs int) []byte {
	if escs%2 == 1 {
		return []byte{'\\'}
	}
	return []byte(st)
}

func trailingESCs(b []byte) int {
	return len(b) - len(bytes.TrimRight(b, "\x1b"))
}
