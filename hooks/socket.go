package hooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/paneherd/paneherd/internal/paths"
)

// sendTimeout keeps a hook from ever hanging tmux's job: a datagram to a live daemon is
// delivered in microseconds.
const sendTimeout = 200 * time.Millisecond

// Send delivers one event to the daemon listening at socket. When none listens it returns
// ErrNoDaemon at once; a socket that is not the user's own is refused
// (paths.CheckSocket).
func Send(socket string, e Event) error {
	if err := paths.CheckSocket(socket); err != nil {
		return err
	}
	conn, err := net.DialTimeout("unixgram", socket, sendTimeout)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	defer conn.Close()
	conn.SetWriteDeadline(time.Now().Add(sendTimeout))
	if _, err := conn.Write(e.encode()); err != nil {
		return fmt.Errorf("hooks: send %s: %w", e.Name, err)
	}
	return nil
}

// ErrNoDaemon is returned by Send when no daemon listens on the socket. It is not
// wire.ErrNoDaemon: it says only that the hook socket has no listener (a daemon starting
// holds its lock before it listens), the cue for a hook to revive the daemon
// (herd.Revive, which looks at the lock), and it never crosses the query socket.
var ErrNoDaemon = errors.New("no daemon listening")

// Listener is the daemon's end.
type Listener struct {
	conn *net.UnixConn
	path string
}

// Listen binds the socket. The caller holds the daemon lock, so a socket file that exists
// is a leftover of a daemon that crashed: remove it and bind again.
func Listen(path string) (*Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("hooks: listen %s: %w", path, err)
	}
	os.Remove(path)
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return nil, fmt.Errorf("hooks: listen %s: %w", path, err)
	}
	os.Chmod(path, 0o600)
	return &Listener{conn: conn, path: path}, nil
}

// Events delivers events until ctx ends or the listener is closed.
func (l *Listener) Events(ctx context.Context) <-chan Event {
	ch := make(chan Event, 64)
	go func() {
		defer close(ch)
		buf := make([]byte, maxDatagram+1)
		for {
			n, err := l.conn.Read(buf)
			if err != nil {
				return
			}
			e, err := decode(buf[:n])
			if err != nil {
				continue
			}
			select {
			case ch <- e:
			case <-ctx.Done():
				return
			default: // the daemon is behind; it will reconcile anyway
			}
		}
	}()
	return ch
}

// Close stops listening and removes the socket.
func (l *Listener) Close() error {
	err := l.conn.Close()
	os.Remove(l.path)
	// A socket put in the shared temp directory (paths.Dir.Socket) leaves that
	// directory behind; it goes once empty. A state directory is never empty.
	os.Remove(filepath.Dir(l.path))
	return err
}
