package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// floorClient is one tmux control client of a floor watcher. Not controlmode.Client,
// which splits and parses every line it reads: a floor must cost no more than reading.
type floorClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	done chan struct{} // closed once it has exited
}

// attachWithin: a control client not attached by then has failed.
const attachWithin = 5 * time.Second

// attach starts a control client on the session with the flags, waits until it is
// attached (until then its commands would run for "the best client", maybe another),
// runs setup, every command of which must succeed, and then reads and drops all it
// prints. A client that exits before ctx ends fails the floor.
func (f *floorRun) attach(ctx context.Context, session, flags string, setup []string) (*floorClient, error) {
	cmd := exec.Command("tmux", tmux.Server{Socket: f.socket}.Args("-C", "attach", "-t", session, "-f", flags)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tmux -C attach -t %s: %w", session, err)
	}
	c := &floorClient{cmd: cmd, in: in, done: make(chan struct{})}
	f.clients = append(f.clients, c)
	r := bufio.NewReaderSize(out, 64<<10)
	ready := make(chan error, 1)
	go func() {
		err := handshake(r, in, setup)
		ready <- err
		if err == nil {
			io.Copy(io.Discard, r)
		}
		cmd.Wait()
		close(c.done)
		if err == nil && ctx.Err() == nil {
			f.fail(fmt.Errorf("the control client on %s exited", session))
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			return nil, fmt.Errorf("control client on %s: %w", session, err)
		}
		return c, nil
	case <-time.After(attachWithin):
		cmd.Process.Kill()
		return nil, fmt.Errorf("control client on %s: not attached after %s", session, attachWithin)
	}
}

// handshake reads until the client is attached, then sends setup and reads a reply for
// each of its commands.
func handshake(r *bufio.Reader, in io.Writer, setup []string) error {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("exited before it was attached: %w", err)
		}
		if strings.HasPrefix(line, "%exit") {
			return fmt.Errorf("%s", strings.TrimSpace(line))
		}
		if strings.HasPrefix(line, "%session-changed") {
			break
		}
	}
	if len(setup) == 0 {
		return nil
	}
	if _, err := io.WriteString(in, strings.Join(setup, "\n")+"\n"); err != nil {
		return err
	}
	for answered := 0; answered < len(setup); {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(line, "%error"):
			return fmt.Errorf("tmux refused %q", setup[answered])
		case strings.HasPrefix(line, "%end"):
			answered++
		}
	}
	return nil
}
