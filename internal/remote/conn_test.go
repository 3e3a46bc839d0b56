package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/sshtest"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// fakeRemotePaneherd stands in for paneherd on the host: "exit N" prints a line to each
// stream and exits N; "hold" says held and runs until its stdin ends; otherwise it writes
// its arguments, then stdin, NUL-terminated.
const fakeRemotePaneherd = `#!/bin/sh
if [ "$1" = exit ]; then echo out; echo err >&2; exit "$2"; fi
if [ "$1" = hold ]; then echo held; exec cat >/dev/null; fi
for a in "$@"; do printf '%s\000' "$a"; done
cat
`

// rig is an sshd whose sessions find bin/paneherd (the fake unless a test puts another
// there), and a Conn to it as alias through the server's ssh config.
type rig struct {
	sshd *sshtest.Server
	bin  string
	conn *Conn
}

func newRig(t *testing.T, alias string) *rig {
	t.Helper()
	bin := t.TempDir()
	sshd := sshtest.Start(t, sshtest.Options{Aliases: []string{"devbox"}, Path: []string{bin}})
	if err := os.WriteFile(filepath.Join(bin, "paneherd"), []byte(fakeRemotePaneherd), 0o700); err != nil {
		t.Fatal(err)
	}
	return &rig{sshd: sshd, bin: bin, conn: newConn(t, sshd, alias, filepath.Join(sshd.Dir, "ctl"))}
}

// newConn is a Conn to alias with its control sockets in dir. When the test ends, no
// ssh of its may run: no master is left behind.
func newConn(t *testing.T, sshd *sshtest.Server, alias, dir string, options ...string) *Conn {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	hosts, err := ParseHosts(alias)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := NewConn(hosts[0], dir, strings.Join(append([]string{"-F", Quote(sshd.Config)}, options...), " "))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if pid, err := conn.Master(context.Background()); err == nil {
			t.Errorf("a master (pid %d) outlived the commands that ran", pid)
			if isSSH(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return conn
}

// isSSH: pid is a running ssh, not a zombie. Its pid is checked to still be an ssh
// before it is signalled.
func isSSH(pid int) bool {
	procs, err := proc.Descendants(pid)
	return err == nil && procs[0].Name == "ssh" && !procs[0].Zombie
}

// hold runs the master command on conn, as the daemon's follow stream does, until the
// test ends or the returned func is called; it returns once the host answered.
func hold(t *testing.T, conn *Conn) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, toStdout := io.Pipe()
	stdin, feed := io.Pipe()
	cmd := conn.MasterCommand(ctx, []string{"hold"})
	cmd.Stdin, cmd.Stdout = stdin, toStdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); toStdout.Close(); close(done) }()
	got := make([]byte, len("held\n"))
	if _, err := io.ReadFull(out, got); err != nil || string(got) != "held\n" {
		t.Fatalf("the master command said %q, %v", got, err)
	}
	go io.Copy(io.Discard, out)
	var once sync.Once
	stop = func() error {
		once.Do(func() {
			cancel()
			feed.Close()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Errorf("the master command still runs 10s after its ctx ended")
			}
		})
		return waitErr
	}
	t.Cleanup(func() { stop() })
	return stop
}

// run runs paneherd with args on the rig's host and returns its stdout, stderr and
// Wait's error, failing the test if it took longer than limit.
func run(t *testing.T, conn *Conn, stdin string, limit time.Duration, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := conn.Command(ctx, args)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	began := time.Now()
	err := cmd.Run()
	if took := time.Since(began); took > limit {
		t.Errorf("paneherd %q on %s took %s, want under %s", args, conn.Host.Label, took, limit)
	}
	return stdout.String(), stderr.String(), err
}

// TestCommandCarriesHostileArgumentsAndStdin: through real ssh and the login shell sshd
// runs, every argument arrives as it was and stdin is paneherd's.
func TestCommandCarriesHostileArgumentsAndStdin(t *testing.T) {
	r := newRig(t, "devbox")
	stdout, stderr, err := run(t, r.conn, "a prompt\nwith two lines; $(touch x)\n", 20*time.Second, hostileArgs...)
	if err != nil {
		t.Fatalf("Run: %v (stderr %q)", err, stderr)
	}
	want := strings.Join(hostileArgs, "\x00") + "\x00a prompt\nwith two lines; $(touch x)\n"
	if stdout != want {
		t.Errorf("stdout\n%q\nwant\n%q", stdout, want)
	}
	if stderr != "" {
		t.Errorf("stderr %q, want nothing", stderr)
	}
}

// TestExitCodesPassThrough: paneherd's exit code on the host is the command's, and its
// two streams are passed on as they were.
func TestExitCodesPassThrough(t *testing.T) {
	r := newRig(t, "devbox")
	for _, code := range []int{0, 1, 2, 10, 23, 130} {
		stdout, stderr, err := run(t, r.conn, "", 20*time.Second, "exit", strconv.Itoa(code))
		var exit *ExitError
		if code == 0 && err != nil || code != 0 && (!errors.As(err, &exit) || exit.Host != "devbox" || exit.Code != code) {
			t.Errorf("exit %d: Wait = %#v, want an *ExitError for devbox with its code", code, err)
		}
		if stdout != "out\n" || stderr != "err\n" {
			t.Errorf("exit %d: stdout %q, stderr %q", code, stdout, stderr)
		}
	}
}

// TestLoginShellNoiseIsDropped: a HOME whose .bashrc prints to stdout and stderr, with
// no newline at the end, changes nothing of what the real paneherd prints.
func TestLoginShellNoiseIsDropped(t *testing.T) {
	r := newRig(t, "devbox")
	buildPaneherd(t, filepath.Join(r.bin, "paneherd"))
	rc := "printf 'Welcome!\\nlast login: never'; echo 'pyenv: command not found' >&2; printf 'no newline' >&2\n"
	if err := os.WriteFile(filepath.Join(r.sshd.Home, ".bashrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	local, err := exec.Command(filepath.Join(r.bin, "paneherd"), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := run(t, r.conn, "", 30*time.Second, "version")
	if err != nil || stdout != string(local) || stderr != "" {
		t.Errorf("paneherd version on devbox: %v, stdout %q, stderr %q; want stdout %q alone", err, stdout, stderr, local)
	}
	// Without the mark the noise would be there: the rc file ran.
	raw, err := r.sshd.SSH("devbox", "true").Output()
	if err != nil || !strings.Contains(string(raw), "Welcome!") {
		t.Errorf("the .bashrc did not run: %v, %q", err, raw)
	}
}

func buildPaneherd(t *testing.T, out string) {
	t.Helper()
	os.Remove(out) // the fake: go build overwrites only a program it built
	build := exec.Command("go", "build", "-o", out, "github.com/paneherd/paneherd/cmd/paneherd")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, msg)
	}
}

// TestNoPaneherdIsExplained: a host with no paneherd gives Explain's line and the
// launcher's code, not paneherd's.
func TestNoPaneherdIsExplained(t *testing.T) {
	r := newRig(t, "devbox")
	if err := os.Remove(filepath.Join(r.bin, "paneherd")); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := run(t, r.conn, "", 20*time.Second, "status")
	var failure *Failure
	if !errors.As(err, &failure) || failure.Code != noPaneherdCode || !strings.HasPrefix(failure.Reason, "no paneherd on devbox: install it there") {
		t.Fatalf("Wait = %v, want a Failure saying to install paneherd", err)
	}
	if stderr != "" {
		t.Errorf("stderr %q: the launcher's words belong in the Failure", stderr)
	}
}

// TestUnknownHostKeyNeverPrompts: a host whose key ssh cannot check fails at once with
// Explain's line. An askpass program stands ready to say yes: without BatchMode, ssh
// would ask it and log in; and the user's options cannot turn BatchMode off.
func TestUnknownHostKeyNeverPrompts(t *testing.T) {
	r := newRig(t, "devbox")
	asked := filepath.Join(t.TempDir(), "asked")
	askpass := filepath.Join(r.bin, "askpass")
	if err := os.WriteFile(askpass, []byte("#!/bin/sh\necho \"$*\" >> "+Quote(asked)+"\necho yes\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_ASKPASS", askpass)
	t.Setenv("SSH_ASKPASS_REQUIRE", "force")
	conn := newConn(t, r.sshd, sshtest.UnknownKeyAlias, filepath.Join(r.sshd.Dir, "ctl2"), "-o", "BatchMode=no")
	_, _, err := run(t, conn, "", 5*time.Second, "status")
	var failure *Failure
	if !errors.As(err, &failure) || !strings.Contains(failure.Reason, "host key of "+sshtest.UnknownKeyAlias+" is not known") ||
		!strings.Contains(failure.Reason, "run `ssh -F "+r.sshd.Config+" -o BatchMode=no "+sshtest.UnknownKeyAlias+"` once yourself") {
		t.Errorf("Wait = %v, want a Failure saying the host key is not known", err)
	}
	if got, err := os.ReadFile(asked); err == nil {
		t.Errorf("ssh asked: %q", got)
	}
}

// TestRefusedLoginIsExplained: a user the host does not know is refused, never asked
// for a password.
func TestRefusedLoginIsExplained(t *testing.T) {
	r := newRig(t, "devbox")
	conn := newConn(t, r.sshd, "nosuchuser@devbox", filepath.Join(r.sshd.Dir, "ctl2"))
	_, _, err := run(t, conn, "", 5*time.Second, "status")
	var failure *Failure
	if !errors.As(err, &failure) || !strings.HasPrefix(failure.Reason, "devbox refused the login: paneherd's ssh never asks") {
		t.Errorf("Wait = %v, want a Failure saying the login was refused", err)
	}
}

// TestUnreachableThenBack: with sshd gone, a command fails with Explain's line; once
// sshd is back, the next command works.
func TestUnreachableThenBack(t *testing.T) {
	r := newRig(t, "devbox")
	if _, _, err := run(t, r.conn, "", 20*time.Second, "exit", "0"); err != nil {
		t.Fatal(err)
	}
	r.sshd.Kill()
	_, _, err := run(t, r.conn, "", 5*time.Second, "exit", "0")
	var failure *Failure
	if !errors.As(err, &failure) || failure.Reason != "cannot reach devbox: connection refused (no sshd listens on that port, or the host is still starting)" {
		t.Errorf("with sshd gone: Wait = %v, want a Failure saying the connection is refused", err)
	}
	r.sshd.Restart()
	if stdout, _, err := run(t, r.conn, "", 20*time.Second, "exit", "0"); err != nil || stdout != "out\n" {
		t.Errorf("with sshd back: %v, stdout %q", err, stdout)
	}
}

// TestCommandsShareTheMastersConnection: while the master command runs, commands, one
// after another and at once, are sessions on its connection: sshd serves one, and the
// commands leave no ssh of theirs behind.
func TestCommandsShareTheMastersConnection(t *testing.T) {
	r := newRig(t, "devbox")
	hold(t, r.conn)
	master, err := r.conn.Master(context.Background())
	if err != nil {
		t.Fatalf("the master command holds no master: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := run(t, r.conn, "", 30*time.Second, "exit", "0")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a command at once with others: %v", err)
		}
	}
	for i := 0; i < 8; i++ {
		if _, _, err := run(t, r.conn, "", 20*time.Second, "exit", "0"); err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
	}
	if n := r.sshd.Connections(); n != 1 {
		t.Errorf("sshd serves %d connections after 16 commands, want 1", n)
	}
	if now, err := r.conn.Master(context.Background()); err != nil || now != master {
		t.Errorf("the master is %d (%v), want the master command's %d", now, err, master)
	}
}

// TestNothingOutlivesItsCommand: with no master command running, a command connects on
// its own and leaves nothing when it ends: no master, no connection. The master command
// ended, its ssh is gone, and so is a session still running on it, which says it lost
// the connection.
func TestNothingOutlivesItsCommand(t *testing.T) {
	r := newRig(t, "devbox")
	if _, _, err := run(t, r.conn, "", 20*time.Second, "exit", "0"); err != nil {
		t.Fatal(err)
	}
	if pid, err := r.conn.Master(context.Background()); err == nil {
		t.Errorf("a command left a master behind (pid %d)", pid)
	}
	if !tmuxtest.Poll(5*time.Second, func() bool { return r.sshd.Connections() == 0 }) {
		t.Errorf("sshd still serves %d connections after the command ended", r.sshd.Connections())
	}

	stop := hold(t, r.conn)
	master, err := r.conn.Master(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stdin, feed := io.Pipe()
	defer feed.Close()
	session := r.conn.Command(ctx, []string{"hold"})
	session.Stdin = stdin
	var out lockedBuffer
	session.Stdout = &out
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	if !tmuxtest.Poll(10*time.Second, func() bool { return out.String() == "held\n" }) {
		t.Fatalf("the session said %q", out.String())
	}
	stop()
	err = session.Wait()
	var failure *Failure
	if !errors.As(err, &failure) || !strings.HasPrefix(failure.Reason, "lost the connection to devbox") {
		t.Errorf("the session on an ended master: Wait = %v, want a Failure saying the connection was lost", err)
	}
	if !tmuxtest.Poll(5*time.Second, func() bool { return !isSSH(master) }) {
		t.Errorf("the master (pid %d) outlived its command", master)
	}
}

// lockedBuffer is a Cmd's Stdout read by the test while the command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestControlDirWithSSHsSyntax: ssh reads %, blanks, quotes, backslashes and # in
// ControlPath as its own; a directory with them all still holds the one master.
func TestControlDirWithSSHsSyntax(t *testing.T) {
	r := newRig(t, "devbox")
	dir := filepath.Join(r.sshd.Dir, `a b%C#'q"\`)
	conn := newConn(t, r.sshd, "devbox", dir)
	hold(t, conn)
	for i := 0; i < 2; i++ {
		if _, _, err := run(t, conn, "", 20*time.Second, "exit", "0"); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || len(entries[0].Name()) != 40 {
		t.Errorf("the control directory holds %v, want the one socket named by %%C", entries)
	}
	if n := r.sshd.Connections(); n != 1 {
		t.Errorf("sshd serves %d connections, want 1", n)
	}
}

// TestOutputStreamsAndADeadLinkIsNoticed: the master command (follow) is read as it
// writes, and when its host stops answering, it gives up within the keep-alives (the
// first sent AliveInterval after the last word, then AliveCountMax unanswered) and ends
// with a Failure that says so.
func TestOutputStreamsAndADeadLinkIsNoticed(t *testing.T) {
	r := newRig(t, "devbox")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, toStdout := io.Pipe()
	stdin, feed := io.Pipe()
	defer feed.Close()
	cmd := r.conn.MasterCommand(ctx, []string{"first", "second"})
	cmd.Stdin, cmd.Stdout = stdin, toStdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { err := cmd.Wait(); toStdout.Close(); ended <- err }()
	got := make([]byte, len("first\x00second\x00"))
	if _, err := io.ReadFull(out, got); err != nil || string(got) != "first\x00second\x00" {
		t.Fatalf("read while it runs: %q, %v", got, err)
	}
	go io.Copy(io.Discard, out)
	r.sshd.Freeze()
	frozen := time.Now()
	limit := AliveInterval*(AliveCountMax+1) + 10*time.Second
	select {
	case err := <-ended:
		var failure *Failure
		if !errors.As(err, &failure) || failure.Reason != "lost the connection to devbox while paneherd ran there (or it was killed there): the command may have run" {
			t.Errorf("Wait = %v, want a Failure saying the connection was lost", err)
		}
		t.Logf("noticed after %s", time.Since(frozen).Round(time.Second))
	case <-time.After(limit):
		t.Fatalf("the command still runs %s after its host stopped answering", limit)
	}
}

// TestTerminalCommand: switch's line is a connection of its own (never on the master,
// whose end would end it; never a master), with a terminal, its arguments quoted.
func TestTerminalCommand(t *testing.T) {
	c, err := NewConn(Host{Label: "devbox", Dest: "devbox"}, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	argv := c.TerminalCommand([]string{"switch", "--attach", "a;b"})
	if argv[0] != "ssh" || !slices.Contains(argv, "ControlPath=none") || !slices.Contains(argv, "-t") ||
		!strings.HasSuffix(argv[len(argv)-1], " switch --attach 'a;b'") {
		t.Errorf("TerminalCommand = %q", argv)
	}
}

// TestEndedMasterRemovesItsSocket: the master command's ctx ended, its ssh removes its
// control socket (a killed one would leave it, and every later command's ssh would say
// "Control socket connect(…): Connection refused").
func TestEndedMasterRemovesItsSocket(t *testing.T) {
	r := newRig(t, "devbox")
	dir := filepath.Join(r.sshd.Dir, "ctl")
	stop := hold(t, r.conn)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the control directory holds %v while the master runs, want its socket", entries)
	}
	stop()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the control directory holds %v once the master ended, want nothing", entries)
	}
}

// TestHostsRemoteCommandIsIgnored: a Host with a RemoteCommand (tmux new -A, common on
// dev boxes) and a LocalCommand in the user's ssh config still runs paneherd's commands,
// master and sessions, and its LocalCommand never runs here.
func TestHostsRemoteCommandIsIgnored(t *testing.T) {
	r := newRig(t, "devbox")
	ran := filepath.Join(r.sshd.Dir, "local-command-ran")
	config := filepath.Join(r.sshd.Dir, "dev_config")
	stanza := r.sshd.Stanza("devbox") + "\tRemoteCommand tmux new -A -s main\n\tPermitLocalCommand yes\n\tLocalCommand touch " + ran + "\n"
	if err := os.WriteFile(config, []byte(stanza), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.sshd.Dir, "ctl2")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	conn, err := NewConn(Host{Label: "devbox", Dest: "devbox"}, dir, "-F "+Quote(config))
	if err != nil {
		t.Fatal(err)
	}
	stop := hold(t, conn)
	if stdout, stderr, err := run(t, conn, "", 20*time.Second, "exit", "0"); err != nil || stdout != "out\n" {
		t.Errorf("a command to a Host with a RemoteCommand: %v, stdout %q, stderr %q", err, stdout, stderr)
	}
	stop()
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the Host's LocalCommand ran")
	}
}
