package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/paneherd/paneherd/internal/remote"
)

// SSH is the daemon's Dialer: a host's stream is `paneherd follow --json` run there by
// the ssh that holds the host's master connection (remote.Conn.MasterCommand), so the
// daemon keeps one ssh process per host, and every other command paneherd runs to the
// host is a session on it while it runs. Why a host cannot be reached is remote's one
// line (Explain's).
type SSH struct {
	mu    sync.Mutex
	conns map[string]*remote.Conn
	errs  map[string]error
}

// Set makes conns the hosts' ways, by label, and errs why a host has none (its
// @paneherd-ssh cannot be used, say). Streams open now go on; the next dial takes these.
// Safe from any goroutine.
func (s *SSH) Set(conns map[string]*remote.Conn, errs map[string]error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns, s.errs = conns, errs
}

func (s *SSH) conn(host string) (*remote.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.conns[host]; c != nil {
		return c, nil
	}
	if err := s.errs[host]; err != nil {
		return nil, err
	}
	return nil, errors.New("fleet: no way to reach " + host)
}

// Dial runs follow on host. Ending ctx kills its ssh, and with it the sessions on it.
func (s *SSH) Dial(ctx context.Context, host string) (io.ReadCloser, func() error, error) {
	conn, err := s.conn(host)
	if err != nil {
		return nil, nil, err
	}
	out, toOut := io.Pipe()
	said := &stderrTail{}
	cmd := conn.MasterCommand(ctx, []string{"follow", "--json"})
	cmd.Stdout, cmd.Stderr = toOut, said
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	ended := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		toOut.Close()
		ended <- err
	}()
	wait := func() error { return followEnded(conn, <-ended, said.String()) }
	return out, wait, nil
}

// followEnded is why follow ended, in a line, from its error and the tail of its stderr:
// remote's Failure (a link lost under it said with ssh's own last words when it had
// some, which say how: "it stopped answering"; a follow has nothing that "may have
// run"), or paneherd's exit with what it said.
func followEnded(conn *remote.Conn, err error, stderr string) error {
	var exit *remote.ExitError
	var failure *remote.Failure
	switch {
	case errors.As(err, &exit) && strings.TrimSpace(stderr) != "":
		return fmt.Errorf("%s (%v)", paneherdSaid(stderr), err)
	case errors.As(err, &failure) && strings.HasPrefix(failure.Reason, "lost the connection"):
		said := lastLine(stderr)
		if said == "" {
			return errors.New("lost the connection to " + conn.Host.Label)
		}
		return errors.New(conn.Explain(failure.Code, said))
	}
	return err
}

// stderrTail keeps the last maxTail bytes written to it: what paneherd said before its
// usage (an old one's unknown command "follow") is still there after it.
type stderrTail struct {
	mu   sync.Mutex
	tail []byte
}

const maxTail = 8 << 10 // room for the whole of an old paneherd's usage

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tail = append(t.tail, p...)
	if len(t.tail) > maxTail {
		t.tail = t.tail[len(t.tail)-maxTail:]
	}
	return len(p), nil
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.tail)
}

// lastLine is text's last non-empty line.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// paneherdSaid is the last line paneherd wrote of its own ("paneherd: unknown command"),
// which its usage may follow; else text's last line.
func paneherdSaid(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if line := strings.TrimSpace(lines[i]); strings.HasPrefix(line, "paneherd: ") {
			return line
		}
	}
	return lastLine(text)
}
