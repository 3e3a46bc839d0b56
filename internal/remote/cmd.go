package remote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Cmd is paneherd run on a host with some arguments: a session on the host's master
// connection when one runs, else over a connection of its own. What it guarantees:
//
//   - Stdout gets exactly what the remote paneherd wrote to its stdout: whatever the
//     login shell printed before it (rc files that echo) is dropped, found by the mark
//     the launcher writes just before paneherd starts.
//   - Stderr gets what the remote paneherd wrote to its stderr (and, should the link
//     break, what ssh says of it); what came before the mark (rc files, ssh's own
//     words) is kept for Explain, never passed on.
//   - Stdin, when set, is paneherd's stdin (a prompt's text goes there, never on the
//     command line); nil is empty. Wait does not wait for it to be read to its end.
//   - Wait returns nil when paneherd exited 0, an *ExitError with its exit code, unchanged,
//     when it exited otherwise, and a *Failure, one line saying why, when it never ran
//     (ssh could not log in, no paneherd there) or the link broke while it ran.
//
// Stdout and Stderr are written as the output comes, so a long-running command (follow)
// can be read as it goes: give an io.Pipe's writer, and close it once Wait returns.
type Cmd struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	conn   *Conn
	ctx    context.Context
	args   []string
	role   muxRole // how its ssh uses the control socket
	ssh    *exec.Cmd
	stdout *afterMark
	stderr *afterMark
}

// Command is paneherd with args (its argv after the program name) on c's host: a session
// on the host's master connection while MasterCommand's runs, else a connection of its
// own, which ends with it.
func (c *Conn) Command(ctx context.Context, args []string) *Cmd {
	return &Cmd{conn: c, ctx: ctx, args: args, role: muxSession}
}

// MasterCommand is paneherd with args on c's host, run by the ssh that holds the host's
// master connection for Command's: the daemon's one long-lived command per host (follow).
// Its ssh is the master while it runs, and ends with it once the sessions on it have
// ended; should a master run already, it is a session on that one. Ending ctx ends it
// at once, and with it the sessions on it (ssh ends them): a Command then in flight fails
// as a lost connection.
func (c *Conn) MasterCommand(ctx context.Context, args []string) *Cmd {
	return &Cmd{conn: c, ctx: ctx, args: args, role: muxMaster}
}

// Start starts the command; whether the host could be reached, Wait says.
func (cmd *Cmd) Start() error {
	for _, a := range cmd.args {
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("remote: an argument for %s holds a NUL byte, which no command line can: %q", cmd.conn.Host.Label, a)
		}
	}
	cmd.stdout = &afterMark{out: cmd.Stdout}
	cmd.stderr = &afterMark{out: cmd.Stderr}
	// -T: no terminal; -a, -x: the user's agent and X display stay here.
	cmd.ssh = cmd.conn.ssh(cmd.ctx, cmd.role, []string{"-T", "-a", "-x"}, remoteLine(cmd.args))
	cmd.ssh.Stdout, cmd.ssh.Stderr = cmd.stdout, cmd.stderr
	var stdin io.WriteCloser
	if cmd.Stdin != nil {
		stdin, _ = cmd.ssh.StdinPipe() // fails only once started
	}
	if err := cmd.ssh.Start(); err != nil {
		return fmt.Errorf("remote: start ssh for %s: %w", cmd.conn.Host.Label, err)
	}
	if stdin != nil {
		// Not exec's own copy, which Wait waits for: a Stdin that never ends (a
		// pipe kept open) would keep Wait from returning after ssh ended.
		go func() { io.Copy(stdin, cmd.Stdin); stdin.Close() }()
	}
	return nil
}

// TerminalCommand is the command line, ssh first, that runs paneherd with args on c's
// host in the terminal it is started in (ssh -t): a person's, for paneherd to attach
// it to a pane there. It is a connection of its own, never on the master, so that the
// daemon's stream ending (a restart) leaves the person's window be. What the launcher
// and the login shell print is not filtered.
func (c *Conn) TerminalCommand(args []string) []string {
	return c.ssh(context.Background(), muxNone, []string{"-t", "-a", "-x"}, remoteLine(args)).Args
}

// Wait waits for a started command to end; see Cmd for what it returns.
func (cmd *Cmd) Wait() error {
	err := cmd.ssh.Wait()
	code := exitCode(err)
	if err != nil && cmd.ctx.Err() != nil {
		// Ended by ctx: ssh, told to go (SIGTERM), exits 255 as for a lost connection.
		return fmt.Errorf("remote: paneherd on %s: %w", cmd.conn.Host.Label, cmd.ctx.Err())
	}
	if err != nil && code < 0 {
		return fmt.Errorf("remote: paneherd on %s: %w", cmd.conn.Host.Label, err)
	}
	started := cmd.stdout.seen || cmd.stderr.seen
	if started && code != 255 { // ssh's own failure is 255; paneherd's codes are below
		if code == 0 {
			return nil
		}
		return &ExitError{Host: cmd.conn.Host.Label, Code: code}
	}
	reason := fmt.Sprintf("lost the connection to %s while paneherd ran there (or it was killed there): the command may have run", cmd.conn.Host.Label)
	if !started {
		reason = cmd.conn.Explain(code, string(cmd.stderr.before))
	}
	return &Failure{Host: cmd.conn.Host.Label, Code: code, Reason: reason}
}

// Run starts the command and waits for it.
func (cmd *Cmd) Run() error {
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Wait()
}

// ExitError is paneherd's own exit on the host, not 0: pass Code on unchanged; what it
// said went to Stderr.
type ExitError struct {
	Host string
	Code int
}

func (e *ExitError) Error() string { return fmt.Sprintf("paneherd on %s exited %d", e.Host, e.Code) }

// Failure is a command that never reached paneherd on the host, or whose link broke
// while it ran: Reason is one line for a person, saying what to do (Explain's).
type Failure struct {
	Host   string
	Code   int // ssh's exit code: 255 for its own failures, 127 for no paneherd
	Reason string
}

func (f *Failure) Error() string { return f.Reason }

// keepBytes bounds what an afterMark keeps for Explain.
const keepBytes = 8 << 10

// afterMark passes on what follows the first startMark line and keeps the last
// keepBytes of what came before it. exec.Cmd writes to each from one goroutine, and Wait
// reads it after that one is done.
type afterMark struct {
	out    io.Writer // nil drops
	seen   bool
	before []byte
}

var markLine = []byte(startMark + "\n")

func (w *afterMark) Write(p []byte) (int, error) {
	if w.seen {
		return len(p), w.pass(p)
	}
	w.before = append(w.before, p...)
	i := bytes.Index(w.before, markLine)
	if i < 0 {
		if over := len(w.before) - keepBytes; over > 0 {
			w.before = append(w.before[:0], w.before[over:]...)
		}
		return len(p), nil
	}
	rest := append([]byte(nil), w.before[i+len(markLine):]...)
	w.before, w.seen = w.before[:i], true
	return len(p), w.pass(rest)
}

func (w *afterMark) pass(p []byte) error {
	if w.out == nil || len(p) == 0 {
		return nil
	}
	_, err := w.out.Write(p)
	return err
}
