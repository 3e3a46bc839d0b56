package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/internal/shellwords"
)

// How every ssh of a Conn runs. A link that dies is noticed by the master within
// AliveInterval × (AliveCountMax + 1): it exits, and its sessions end with ssh's 255.
const (
	AliveInterval  = 5 * time.Second
	AliveCountMax  = 3
	ConnectTimeout = 10 * time.Second
)

// DeadLinkNoticed is how long the master takes at most to notice a link that died.
const DeadLinkNoticed = AliveInterval * (AliveCountMax + 1)

// maxSocketPath is sun_path's size on macOS and the BSDs (Linux has 108), the NUL
// included.
const maxSocketPath = 104

// masterSuffix is what ssh adds to ControlPath while the master sets its socket up (a
// dot and 16 random characters), before renaming it: the longer path must fit too.
const masterSuffix = 17

// Conn is one host: the ssh commands that reach it. One of them, MasterCommand's (the
// daemon's follow stream), is the host's master connection, in the foreground and for
// its own life only (ControlPersist=no): nothing outlives the process that started it.
// Every other, Command's, is a session on that master while it runs (its control socket
// in a directory of the caller's), else a connection of its own for as long as it runs;
// it never becomes a master, which would outlive it for the sessions of others.
// TerminalCommand's, a person's, is always a connection of its own.
type Conn struct {
	Host Host

	controlPath string   // as ssh is given it: % doubled, %C for the hash ssh makes
	userOptions []string // @paneherd-ssh's words
}

// NewConn prepares ssh for h; nothing runs until a command starts. controlDir is the
// caller's private directory for it, absolute (paths.Dir.SSH: the master's socket goes
// there, named by %C: a 40-character hash of the local host, the remote host, its port and
// user). sshOptions (@paneherd-ssh) are ssh options split as sh splits them, e.g.
// "-F ~/.ssh/fleet_config -o IdentityFile=~/.ssh/fleet": only options, no host or command.
func NewConn(h Host, controlDir, sshOptions string) (*Conn, error) {
	path, err := controlPath(controlDir)
	if err != nil {
		return nil, err
	}
	words, err := SSHOptions(sshOptions)
	if err != nil {
		return nil, err
	}
	return &Conn{Host: h, controlPath: path, userOptions: words}, nil
}

// SSHOptions splits @paneherd-ssh's value into ssh's words, as sh would, and refuses
// what is not an ssh option or is one a Conn sets itself.
func SSHOptions(s string) ([]string, error) {
	home, _ := os.UserHomeDir()
	words, err := shellwords.Split(s, home)
	if err != nil {
		return nil, fmt.Errorf("@paneherd-ssh: %w", err)
	}
	if err := checkOptions(words); err != nil {
		return nil, fmt.Errorf("@paneherd-ssh: %w", err)
	}
	return words, nil
}

// controlPath is ControlPath's value for a socket in dir: ssh reads % as its tokens'
// start (%% is a %) and the value as words (quoted when it has blanks, quotes, a
// backslash or a #).
func controlPath(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("remote: the directory for ssh's control sockets must be absolute, not %q", dir)
	}
	if strings.Contains(dir, "${") {
		return "", fmt.Errorf("remote: ssh would read ${ in %q as a variable: use another directory for its control sockets", dir)
	}
	if n := len(filepath.Join(dir, "x")) - 1 + 40 + masterSuffix; n >= maxSocketPath {
		return "", fmt.Errorf("remote: ssh's control socket in %s would have a path of %d bytes (with the suffix ssh adds while it sets it up), over the %d a unix socket's can hold: use a shorter directory", dir, n, maxSocketPath-1)
	}
	path := strings.ReplaceAll(filepath.Clean(dir), "%", "%%") + "/%C"
	if strings.ContainsAny(path, " \t\"'\\#") {
		path = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(path) + `"`
	}
	return path, nil
}

// sshOwnFlags are the ssh flags a Conn sets or that would change what ssh does for it
// (a master of its own, no command, a control command, backgrounding, a subsystem).
const sshOwnFlags = "MNOSWfsGQV"

// refusedFlags are ssh flags that would break what paneherd reads or writes, and why.
var refusedFlags = map[byte]string{
	'n': "it would empty paneherd's stdin, where a prompt's text goes",
	'q': "it would hide ssh's errors, which paneherd reads to say why a host failed",
	'v': "its debug lines would bury ssh's errors, which paneherd reads to say why a host failed",
	'E': "it would send ssh's errors to a file, away from paneherd, which reads them to say why a host failed",
	'y': "it would send ssh's errors to syslog, away from paneherd, which reads them to say why a host failed",
}

// sshFlagsWithValue are ssh's flags that take a value (its getopt string's).
const sshFlagsWithValue = "BbcDEeFIiJLlmOoPpQRSWw"

// checkOptions refuses words that are not ssh options, and options a Conn sets itself.
func checkOptions(words []string) error {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) < 2 || w[0] != '-' || w == "--" {
			return fmt.Errorf("%q is not an ssh option: give options only (the host comes from @paneherd-hosts)", w)
		}
		for j := 1; j < len(w); j++ {
			f := w[j]
			if strings.IndexByte(sshOwnFlags, f) >= 0 {
				return fmt.Errorf("%q: paneherd sets -%c's part itself", w, f)
			}
			if why, ok := refusedFlags[f]; ok {
				return fmt.Errorf("%q: paneherd's ssh cannot take -%c: %s", w, f, why)
			}
			if strings.IndexByte(sshFlagsWithValue, f) >= 0 {
				if j == len(w)-1 {
					i++ // the value is the next word
					if i == len(words) {
						return fmt.Errorf("%q wants a value after it", w)
					}
				}
				break
			}
		}
	}
	return nil
}

// options are the arguments before the host of every ssh the Conn runs. For each option
// ssh keeps the first value it is given, command line before config files: those
// paneherd depends on come first, then the user's, then defaults the user may change.
func (c *Conn) options(role muxRole) []string {
	opts := []string{
		"-o", "BatchMode=yes", // never a prompt: a host that would ask is reported
		"-o", "ClearAllForwardings=yes", // paneherd opens no port, the user's config aside
		// A Host's RemoteCommand (tmux new -A, on dev boxes) would refuse paneherd's
		// command, and its LocalCommand run here for each ssh.
		"-o", "RemoteCommand=none",
		"-o", "PermitLocalCommand=no",
	}
	opts = append(opts, c.muxOptions(role)...)
	if c.Host.Port != 0 {
		opts = append(opts, "-p", strconv.Itoa(c.Host.Port))
	}
	opts = append(opts, c.userOptions...)
	return append(opts,
		"-o", "ServerAliveInterval="+seconds(AliveInterval),
		"-o", "ServerAliveCountMax="+strconv.Itoa(AliveCountMax),
		"-o", "ConnectTimeout="+seconds(ConnectTimeout))
}

// muxRole is how an ssh of a Conn uses the host's control socket.
type muxRole int

const (
	// muxMaster is the master's ssh: the master when none runs (ControlMaster=auto),
	// else a session on the one that does.
	muxMaster muxRole = iota
	// muxSession is a session on the master when one runs, else a connection of its own;
	// never a master, which would outlive it for the sessions of others.
	muxSession
	// muxNone is a connection of its own, whatever runs: one that must outlive the
	// master (a person's terminal).
	muxNone
)

func (c *Conn) muxOptions(role muxRole) []string {
	switch role {
	case muxMaster:
		return []string{"-o", "ControlMaster=auto", "-o", "ControlPath=" + c.controlPath,
			"-o", "ControlPersist=no"} // the master ends with its own session
	case muxSession:
		return []string{"-o", "ControlMaster=no", "-o", "ControlPath=" + c.controlPath}
	}
	return []string{"-o", "ControlMaster=no", "-o", "ControlPath=none"}
}

func seconds(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }

// ssh is an ssh of this Conn's in role, the given arguments after the options, before
// the host, and after the host. Ending ctx asks it to end (SIGTERM), so that a master
// removes its control socket, and kills it a second later; a kill would leave the socket
// behind, for every later ssh to complain of.
func (c *Conn) ssh(ctx context.Context, role muxRole, before []string, after ...string) *exec.Cmd {
	args := append(append(c.options(role), before...), c.Host.Dest)
	cmd := exec.CommandContext(ctx, "ssh", append(args, after...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	// Also the bound on Wait should something ssh started keep our stdout or stderr.
	cmd.WaitDelay = time.Second
	return cmd
}

var masterPID = regexp.MustCompile(`Master running \(pid=(\d+)\)`)

// Master returns the pid of the ssh that holds the host's master connection; an error
// when none does (the daemon's stream to the host is down).
func (c *Conn) Master(ctx context.Context) (int, error) {
	out, err := c.ssh(ctx, muxSession, []string{"-O", "check"}).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("remote: no master connection to %s: %s", c.Host.Label, LastLine(out))
	}
	m := masterPID.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("remote: ssh -O check for %s said %q", c.Host.Label, LastLine(out))
	}
	return strconv.Atoi(string(m[1]))
}

// exitCode is the exit code of a command that ran (err is Wait's); -1 if it did not end
// by itself.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}
