package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paneherd/paneherd/internal/tmux"
)

// writeClient writes seq to client c's terminal, past tmux: tmux has no command that
// sends bytes to a client, and its passthrough carries only a pane's output, to the
// clients showing that pane. The daemon runs as the clients' user, so it opens the
// client's tty, as a program in a pane would open its own.
//
// tmux writes to that tty too, from its own buffer. The kernel keeps each write() whole
// against other writers of the tty, but tmux's own writes stop where the tty is full,
// often inside a sequence: in a flood of output, about one write in twenty written at a
// random moment landed inside one of tmux's (TestTerminalKeepsTmuxDrawingIntact), and
// the terminal would show the rest of tmux's sequence as text. So seq waits until tmux is
// quiet for the client (waitQuiet): whatever tmux queued is then out, and seq, written
// in one write(), lands between two of its sequences.
func writeClient(ctx context.Context, s tmux.Server, c Client, seq []byte) error {
	fd, err := openTTY(c.TTY)
	if err != nil {
		return fmt.Errorf("%s: %w", c.TTY, err)
	}
	if err := waitQuiet(ctx, s, c, fd); err != nil {
		unix.Close(fd)
		return fmt.Errorf("%s: %w", c.TTY, err)
	}
	if err := writeWhole(ctx, fd, seq); err != nil {
		return fmt.Errorf("%s: %w", c.TTY, err)
	}
	return nil
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

// writeWhole writes seq to fd in one write(), and closes fd. Blocking: a non-blocking
// write() may take part of seq and leave the terminal inside it, swallowing what tmux
// writes next; a blocking one takes all of it, holding the tty's write lock meanwhile.
func writeWhole(ctx context.Context, fd int, seq []byte) error {
	if err := ctx.Err(); err != nil {
		unix.Close(fd)
		return err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return err
	}
	done := make(chan error, 1)
	go func() {
		defer unix.Close(fd)
		n, err := unix.Write(fd, seq)
		if err == nil && n < len(seq) {
			err = fmt.Errorf("wrote %d of %d bytes", n, len(seq))
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		select {
		case err := <-done: // a write done as the deadline came is no failure
			return err
		default:
		}
		// The write ends when the terminal reads again or hangs up.
		return fmt.Errorf("%w: %w", errNotReading, ctx.Err())
	}
}
