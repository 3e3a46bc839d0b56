package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/shellwords"
	"github.com/paneherd/paneherd/statusline"
)

// Command runs a person's program for each notification (@paneherd-notify-command): the
// event in PANEHERD_* variables on top of the daemon's environment, and as one JSON object
// on stdin (EventObject). The program and its arguments come from the option alone,
// split into words without a shell, so no text from a screen is ever read as a command.
type Command struct {
	Program string   // as written: looked up on the daemon's PATH at each Send
	Args    []string // passed as they are
	Timeout time.Duration
	Host    string // PANEHERD_HOST
}

// NewCommand reads @paneherd-notify-command's value: a program and its arguments, quoted
// as in a shell (see shellwords.Split). The program need not exist yet: Send looks it up.
func NewCommand(spec string, timeout time.Duration, host string) (Command, error) {
	home, _ := os.UserHomeDir()
	words, err := shellwords.Split(spec, home)
	if err != nil {
		return Command{}, fmt.Errorf("@paneherd-notify-command: %w", err)
	}
	if len(words) == 0 || words[0] == "" {
		return Command{}, errors.New("@paneherd-notify-command names no program: give one, as in 'paneherd-pushover' or '/usr/local/bin/notify-me --urgent'")
	}
	if timeout <= 0 {
		return Command{}, fmt.Errorf("@paneherd-notify-command-timeout is %s: give a positive duration, as in 10s", timeout)
	}
	return Command{Program: words[0], Args: words[1:], Timeout: timeout, Host: host}, nil
}

// Name is "command".
func (c Command) Name() string { return "command" }

// Describe says which program a notification runs, or why none can.
func (c Command) Describe(ctx context.Context) (string, error) {
	path, err := c.lookPath()
	if err != nil {
		return "", err
	}
	line := secrets.Mask(strings.Join(append([]string{path}, c.Args...), " "))
	return fmt.Sprintf("runs %s with the event in PANEHERD_* variables and as JSON on stdin (%s at most)", line, c.Timeout), nil
}

// Send runs the program once and waits for it, at most Timeout: then it and every
// process it started in its group are killed. What it started and left running when it
// exited is killed too. A non-zero exit is an error that quotes the start of what the
// program printed.
func (c Command) Send(ctx context.Context, n Notification) error {
	path, err := c.lookPath()
	if err != nil {
		return err
	}
	ev := NewEventObject(n, c.Host)
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, c.Args...)
	cmd.Args[0] = c.Program
	cmd.Env = append(os.Environ(), ev.Environ()...)
	cmd.Stdin = bytes.NewReader(ev.JSON())
	out := &headBuffer{max: outputKept}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so that the deadline ends what it started too (a curl under
	// a script); a process left holding its output open is not waited for past waitDelay.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	start := time.Now()
	err = cmd.Run()
	endGroup(cmd)
	return c.outcome(ctx, err, time.Since(start), out.String())
}

// endGroup kills what is left of the program's process group once the program has been
// waited for: a leftover (a `curl … &`) whether or not it held the program's output open
// (exec.ErrWaitDelay), so nothing a notification started outlives it. The group's id
// stays its own while any member lives; with none left the kill finds nothing, as a new
// group could take that id only once the pids had wrapped around.
func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// outcome words how a run ended: nil when the program exited 0 (even if something it
// left behind held its output open: endGroup has killed that).
func (c Command) outcome(ctx context.Context, err error, took time.Duration, output string) error {
	var exit *exec.ExitError
	switch {
	case err == nil || errors.Is(err, exec.ErrWaitDelay):
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("command: %s did not finish within %s and was killed with the processes it started%s: make it quicker or raise @paneherd-notify-command-timeout",
			c.Program, took.Round(100*time.Millisecond), quoted(output))
	case ctx.Err() != nil:
		return fmt.Errorf("command: %s was stopped: %w", c.Program, ctx.Err())
	case errors.As(err, &exit):
		return fmt.Errorf("command: %s %s%s", c.Program, exitWords(exit), quoted(output))
	}
	return fmt.Errorf("command: run %s: %w", c.Program, err)
}

// exitWords is how the program ended, as a person reads it.
func exitWords(exit *exec.ExitError) string {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", exit.ExitCode())
}

// lookPath finds the program as the daemon would run it, at each use: it may be
// installed, or PATH changed, after the option was set.
func (c Command) lookPath() (string, error) {
	path, err := exec.LookPath(c.Program)
	if err != nil {
		return "", fmt.Errorf("command: %s is not found on the daemon's PATH (%s): install it, or give its full path in @paneherd-notify-command", c.Program, os.Getenv("PATH"))
	}
	return path, nil
}

// quoted is the start of a program's output for an error: one line, masked and clean,
// after ": ".
func quoted(output string) string {
	text := strings.Join(strings.Fields(statusline.Clean(secrets.Mask(output))), " ")
	if text == "" {
		return ""
	}
	return ": " + statusline.Clip(text, outputQuoted)
}

const (
	waitDelay    = time.Second
	outputKept   = 4096 // bytes of a program's output kept, for the error
	outputQuoted = 200  // characters of it an error quotes
)

// headBuffer keeps the first max bytes written to it and drops the rest, telling the
// writer all went well: a chatty program must neither grow the daemon nor block on a
// full pipe.
type headBuffer struct {
	max int
	buf bytes.Buffer
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (h *headBuffer) String() string { return h.buf.String() }
