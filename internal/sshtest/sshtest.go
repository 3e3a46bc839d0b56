// Package sshtest runs a real OpenSSH sshd on 127.0.0.1 for tests: the test's own user
// logs in with a key made for the test, and ssh finds the way, the key and the host key
// through one config file (ssh -F Server.Config). Every session the server starts gets
// an environment of the test's making (sshd's SetEnv): its own HOME, TMUX_TMPDIR and XDG
// directories, so "the remote" is a second tmux server and daemon in temporary
// directories, and none of the running user's rc files is read.
package sshtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"golang.org/x/sys/unix"
)

// UnknownKeyAlias is a Host in every Server's Config that reaches the server with a
// known_hosts file of its own, which holds no key: ssh cannot check the server's key.
const UnknownKeyAlias = "unknown-key"

// T is what the server needs of its user: a test's testing.TB, or a program's (the
// benchmark's) stand-in. Fatal and Skip end the caller's goroutine.
type T interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
	Cleanup(func())
}

// Options say how the server is reached and what its sessions see.
type Options struct {
	// Aliases are Host names in Config that reach the server, its key known; "remote"
	// when none is given. Each reaches it at an address of its own (127.0.0.1, then
	// 127.0.0.2, …), so ssh takes them for distinct machines: each its own %C, so its own
	// control socket.
	Aliases []string
	// Path is put in front of the sessions' PATH: where the remote's paneherd is.
	Path []string
	// Env is NAME=value for every session, over the defaults (Server.Env).
	Env []string
}

// Server is a running sshd.
type Server struct {
	Port   int
	Dir    string // keys, configs and the sessions' directories: short, for sockets
	Config string // for ssh -F: the aliases, the key, known_hosts
	Key    string // the user's private key
	User   string // the user who logs in: the test's own
	Home   string // the sessions' HOME, made empty

	t       T
	sshd    string
	addrs   []string // where it listens: an address per alias, then UnknownKeyAlias's
	aliases []string
	env     []string
	mu      sync.Mutex
	cmd     *exec.Cmd
	log     *lockedLog
	ended   chan struct{}
}

// Start starts sshd, or skips the test with the reason it cannot run here. Everything it
// started is ended, and Dir removed, when the test ends.
func Start(t T, o Options) *Server {
	t.Helper()
	sshd := lookSSHD(t)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir(): unix socket paths over ~100 bytes fail, and test names make
	// t.TempDir() paths long; ssh's control sockets and the remote's tmux live here.
	dir, err := os.MkdirTemp("/tmp", "phssh")
	if err != nil {
		t.Fatalf("sshtest: make dir: %v", err)
	}
	s := &Server{Dir: dir, User: me.Username, Home: filepath.Join(dir, "home"), Key: filepath.Join(dir, "user"), t: t, sshd: sshd}
	t.Cleanup(func() { s.Kill(); os.RemoveAll(dir) })
	s.env = s.sessionEnv(o)
	for _, d := range []string{s.Home, filepath.Join(dir, "tmux"), filepath.Join(dir, "run")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatalf("sshtest: %v", err)
		}
	}
	s.makeKeys()
	s.Port = freePort(t)
	aliases := o.Aliases
	if len(aliases) == 0 {
		aliases = []string{"remote"}
	}
	// One more address than aliases, UnknownKeyAlias's: ssh takes it for a machine of its
	// own, whose master connection (%C) no alias's command could ride on.
	for i := range len(aliases) + 1 {
		s.addrs = append(s.addrs, fmt.Sprintf("127.0.0.%d", i+1))
	}
	s.writeSSHDConfig()
	s.writeClientConfig(aliases)
	s.Restart()
	return s
}

// lookSSHD finds sshd, or skips the test saying what is missing.
func lookSSHD(t T) string {
	t.Helper()
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("sshtest: ssh (openssh-client) is needed")
	}
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd" // sbin is often off a user's PATH
	}
	if _, err := os.Stat(sshd); err != nil {
		t.Skip("sshtest: sshd (openssh-server) is needed")
	}
	if _, err := os.Stat("/run/sshd"); os.Geteuid() == 0 && err != nil {
		t.Skip("sshtest: sshd run as root needs its privilege separation directory /run/sshd (the openssh-server service makes it)")
	}
	return sshd
}

// Env is what every session starts with, besides what sshd sets itself (USER, SSH_*):
// HOME, TMUX_TMPDIR, the XDG directories and PATH.
func (s *Server) Env() []string { return append([]string(nil), s.env...) }

func (s *Server) sessionEnv(o Options) []string {
	path := append(append([]string(nil), o.Path...), "/usr/local/bin", "/usr/bin", "/bin")
	env := []string{
		"HOME=" + s.Home,
		"PATH=" + strings.Join(path, ":"),
		"TMUX_TMPDIR=" + filepath.Join(s.Dir, "tmux"),
		"XDG_CONFIG_HOME=" + filepath.Join(s.Home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(s.Home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		"XDG_RUNTIME_DIR=" + filepath.Join(s.Dir, "run"),
		"LANG=C.UTF-8",
	}
	for _, kv := range o.Env {
		name, _, _ := strings.Cut(kv, "=")
		env = withoutVar(env, name)
		env = append(env, kv)
	}
	return env
}

func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// makeKeys makes the host's key, the user's key and a known_hosts file that knows the
// host's.
func (s *Server) makeKeys() {
	for _, k := range []string{"host", "user"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(s.Dir, k)).CombinedOutput(); err != nil {
			s.t.Fatalf("sshtest: ssh-keygen: %v: %s", err, out)
		}
	}
	s.copyFile(filepath.Join(s.Dir, "user.pub"), filepath.Join(s.Dir, "authorized_keys"), "")
}

func (s *Server) copyFile(from, to, prefix string) {
	data, err := os.ReadFile(from)
	if err != nil {
		s.t.Fatalf("sshtest: %v", err)
	}
	if err := os.WriteFile(to, append([]byte(prefix), data...), 0o600); err != nil {
		s.t.Fatalf("sshtest: %v", err)
	}
}

func freePort(t T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *Server) writeSSHDConfig() {
	var lines []string
	for _, a := range s.addrs {
		lines = append(lines, "ListenAddress "+a)
	}
	lines = append(lines,
		"Port "+strconv.Itoa(s.Port),
		"HostKey "+filepath.Join(s.Dir, "host"), "AuthorizedKeysFile "+filepath.Join(s.Dir, "authorized_keys"),
		"PidFile none", "StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password", "AcceptEnv LC_*", "PrintMotd no", "PrintLastLog no",
		// INFO says "Server listening on": Restart waits for that line, not for a
		// connection of its own, which Connections would count.
		"LogLevel INFO",
		// ~/.ssh/rc is read from the real home (sshd's, not HOME): not the test's.
		"PermitUserRC no",
		"SetEnv "+quoteAll(s.env),
	)
	s.write("sshd_config", strings.Join(lines, "\n")+"\n")
}

// quoteAll quotes each NAME=value for sshd_config, which splits a line on blanks
// outside double quotes.
func quoteAll(env []string) string {
	q := make([]string, len(env))
	for i, kv := range env {
		q[i] = `"` + kv + `"`
	}
	return strings.Join(q, " ")
}

// writeClientConfig writes Config: a Stanza per alias and for UnknownKeyAlias.
func (s *Server) writeClientConfig(aliases []string) {
	var names []string
	for _, a := range s.addrs {
		names = append(names, fmt.Sprintf("[%s]:%d", a, s.Port))
	}
	s.copyFile(filepath.Join(s.Dir, "host.pub"), filepath.Join(s.Dir, "known_hosts"), strings.Join(names, ",")+" ")
	s.aliases = aliases
	config := ""
	for _, a := range append(aliases, UnknownKeyAlias) {
		config += s.Stanza(a)
	}
	s.Config = filepath.Join(s.Dir, "ssh_config")
	s.write("ssh_config", config)
}

// Stanza is the Host block of Config for alias (one of the server's, or
// UnknownKeyAlias): whole, so a test can put those of several servers in one config.
func (s *Server) Stanza(alias string) string {
	addr, known := s.addrs[0], filepath.Join(s.Dir, "known_hosts")
	if i := slices.Index(s.aliases, alias); i >= 0 {
		addr = s.addrs[i]
	} else if alias == UnknownKeyAlias {
		addr, known = s.addrs[len(s.addrs)-1], filepath.Join(s.Dir, "unknown_hosts")
	} else {
		s.t.Fatalf("sshtest: %q is not an alias of the server", alias)
	}
	return fmt.Sprintf("Host %s\n\tHostName %s\n\tPort %d\n\tUser %s\n\tIdentityFile %s\n\tIdentitiesOnly yes\n"+
		"\tUserKnownHostsFile %s\n\tGlobalKnownHostsFile /dev/null\n\tLogLevel ERROR\n", alias, addr, s.Port, s.User, s.Key, known)
}

func (s *Server) write(name, text string) {
	if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(text), 0o600); err != nil {
		s.t.Fatalf("sshtest: %v", err)
	}
}

// SSH is ssh with Config, given args (an alias, then the remote command).
func (s *Server) SSH(args ...string) *exec.Cmd {
	return exec.Command("ssh", append([]string{"-F", s.Config}, args...)...)
}

// Restart starts sshd on Port again once Kill stopped it (Start's first start too), and
// returns once it accepts connections.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		s.t.Fatal("sshtest: Restart while sshd runs: Kill it first")
	}
	cmd := exec.Command(s.sshd, "-D", "-e", "-f", filepath.Join(s.Dir, "sshd_config"))
	s.log = &lockedLog{}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("sshtest: start sshd: %v", err)
	}
	s.cmd, s.ended = cmd, make(chan struct{})
	go func(ended chan struct{}) { cmd.Wait(); close(ended) }(s.ended)
	if !tmuxtest.Poll(10*time.Second, s.listening) {
		s.t.Fatalf("sshtest: sshd never listened on %d: %s", s.Port, s.log.String())
	}
}

// listening: sshd said it listens, or it has exited (Restart then fails).
func (s *Server) listening() bool {
	select {
	case <-s.ended:
		return false
	default:
		log := s.log.String()
		for _, a := range s.addrs {
			if !strings.Contains(log, "Server listening on "+a+" port "+strconv.Itoa(s.Port)) {
				return false
			}
		}
		return true
	}
}

// Kill ends sshd and every connection it serves, with the sessions' processes below
// them, as a host that went away would: a client's next packet finds nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	killTree(s.cmd.Process.Pid)
	<-s.ended
	s.cmd = nil
}

// Freeze stops sshd and every connection it serves (SIGSTOP): the host stops answering
// while its TCP connections stay open, as on a link that died. Kill or Thaw ends it.
func (s *Server) Freeze() { s.signalTree(unix.SIGSTOP) }

// Thaw lets a frozen server go on.
func (s *Server) Thaw() { s.signalTree(unix.SIGCONT) }

func (s *Server) signalTree(sig unix.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	procs, err := proc.Descendants(s.cmd.Process.Pid)
	if err != nil {
		return
	}
	for _, p := range procs {
		if fd, ok := pinned(p); ok {
			unix.PidfdSendSignal(fd, sig, nil, 0)
			unix.Close(fd)
		}
	}
}

// killTree kills root and every process below it. Each is stopped first, so none
// forks a process the kill would miss (a connection sshd accepts as it is killed), and
// each is signalled by a pidfd opened while a second look at /proc shows its pid still
// names the process of the first (one that exited in between may have left its pid to
// another). proc.HoldTree would spare them all: they are below this process.
func killTree(root int) {
	held := map[int]int{} // pid -> pidfd
	defer func() {
		for _, fd := range held {
			unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			unix.Close(fd)
		}
	}()
	for {
		procs, err := proc.Descendants(root)
		if err != nil {
			return
		}
		grew := false
		for _, p := range procs {
			if _, ok := held[p.PID]; !ok {
				if fd, ok := pinned(p); ok {
					held[p.PID], grew = fd, true
					unix.PidfdSendSignal(fd, unix.SIGSTOP, nil, 0)
				}
			}
		}
		if !grew {
			return
		}
	}
}

// pinned opens a pidfd on p, if its pid still names p.
func pinned(p proc.Process) (int, bool) {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return 0, false
	}
	if now, err := proc.Descendants(p.PID); err != nil || now[0].Start != p.Start {
		unix.Close(fd)
		return 0, false
	}
	return fd, true
}

// Connections is how many connections sshd serves now: each is a process of its own,
// below the listener.
func (s *Server) Connections() int {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	procs, err := proc.Descendants(s.cmd.Process.Pid)
	if err != nil {
		s.t.Fatalf("sshtest: %v", err)
	}
	n := 0
	for _, p := range procs {
		if p.PPID == s.cmd.Process.Pid && !p.Zombie {
			n++
		}
	}
	return n
}

// Log is what sshd wrote to stderr since it last started.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// lockedLog is sshd's stderr: written by exec's copier, read by the test.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
