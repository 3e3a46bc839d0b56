package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Exec is a Dialer that runs a program per host and reads its standard output: ssh to
// the host in the daemon, a paneherd of this machine in tests.
type Exec struct {
	// Command is the program and its arguments that write host's follow stream.
	Command func(host string) []string
	// Env is the program's environment (nil: this process's).
	Env []string
}

// Dial starts the program; ending ctx kills it. Its stdin is empty. wait's error ends
// with the last line it wrote to stderr (ssh's, or the remote paneherd's, reason).
func (x Exec) Dial(ctx context.Context, host string) (io.ReadCloser, func() error, error) {
	argv := x.Command(host)
	if len(argv) == 0 {
		return nil, nil, errors.New("fleet: no command to reach " + host)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = x.Env
	stderr := &lastLine{}
	cmd.Stderr = stderr
	// A child of the program that keeps its stderr open must not hold wait for ever.
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("fleet: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("fleet: %w", err)
	}
	wait := func() error {
		err := cmd.Wait()
		if said := stderr.String(); err != nil && said != "" {
			return fmt.Errorf("%s (%v)", said, err)
		}
		return err
	}
	return out, wait, nil
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
