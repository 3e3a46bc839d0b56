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
	said := &lastLine{}
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

// followEnded is why follow ended, in a line: remote's Failure (a link lost under it
// said with ssh's own last words when it had some, which say how: "it stopped
// answering"; a follow has nothing that "may have run"), or paneherd's exit with the
// last thing it said.
func followEnded(conn *remote.Conn, err error, said string) error {
	var exit *remote.ExitError
	var failure *remote.Failure
	switch {
	case errors.As(err, &exit) && said != "":
		return fmt.Errorf("%s (%v)", said, err)
	case errors.As(err, &failure) && strings.HasPrefix(failure.Reason, "lost the connection"):
		if said == "" {
			return errors.New("lost the connection to " + conn.Host.Label)
		}
		return errors.New(conn.Explain(failure.Code, said))
	}
	return err
}

// lastLine keeps the last non-empty line written to it.
type lastLine struct {
	mu      sync.Mutex
	partial []byte
	last    string
}

func (l *lastLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := strings.IndexByte(string(l.partial), '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(l.partial[:i])); line != "" {
			l.last = line
		}
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 4096 {
		l.partial = l.partial[len(l.partial)-4096:]
	}
	return len(p), nil
}

func (l *lastLine) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if line := strings.TrimSpace(string(l.partial)); line != "" {
		return line
	}
	return l.last
}
