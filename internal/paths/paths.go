// Package paths says where paneherd keeps its files for one tmux server.
//
// Two places: the daemon's lock, sockets and snapshot sit beside the tmux server's own
// socket (in tmux's per-user 0700 directory), so every process that reaches the server
// finds the same daemon whatever its environment says (a socket path too long for that
// sends them to $TMPDIR/paneherd-<uid>); the database and logs, which
// outlive the server, sit in $XDG_STATE_HOME/paneherd/<server-key>/. Whoever creates,
// reads or dials the runtime files checks first that they are the user's own.
package paths

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Dir is where paneherd keeps the files of one tmux server.
type Dir struct {
	State   string // persistent: database, log
	Runtime string // live: lock, sockets, snapshot
	// Parent holds Runtime when it cannot sit beside the tmux socket (the path would be
	// too long for a socket): a directory of paneherd's own in a shared place, which must
	// be ours and closed to others too, or whoever could write it could swap Runtime for
	// a directory of her own. Empty beside the socket.
	Parent string
}

// maxSocketPath keeps socket paths under the kernel's limit for sun_path (108 bytes on
// Linux, 104 on the BSDs).
const maxSocketPath = 100

// ForServer returns the directories for the tmux server at socketPath, with key naming
// its state directory; getenv gives XDG_STATE_HOME, HOME and TMPDIR.
func ForServer(socketPath, key string, getenv func(string) string) (Dir, error) {
	base, err := XDG(getenv, "XDG_STATE_HOME", ".local/state")
	if err != nil {
		return Dir{}, err
	}
	d := Dir{State: filepath.Join(base, "paneherd", key), Runtime: socketPath + ".paneherd"}
	if len(filepath.Join(d.Runtime, "query.sock")) > maxSocketPath {
		sum := sha256.Sum256([]byte(socketPath))
		d.Parent = runtimeParent(getenv)
		d.Runtime = filepath.Join(d.Parent, hex.EncodeToString(sum[:8]))
	}
	return d, nil
}

// runtimeParent is where runtime directories go when they cannot sit beside the socket:
// $TMPDIR/paneherd-<uid>, which Create makes or refuses when another user made it first.
// Not $XDG_RUNTIME_DIR: logind removes it when the user's last session ends, while tmux
// and its daemon live on, and cron, `ssh host cmd` and MCP clients often lack it, so two
// processes of the user would look for the daemon in two places.
func runtimeParent(getenv func(string) string) string {
	tmp := getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, fmt.Sprintf("paneherd-%d", os.Getuid()))
}

// XDG returns an XDG base directory: the variable when set, else $HOME/fallback.
func XDG(getenv func(string) string, variable, fallback string) (string, error) {
	if dir := getenv(variable); dir != "" {
		return dir, nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", fmt.Errorf("paths: neither %s nor HOME is set", variable)
	}
	return filepath.Join(home, fallback), nil
}

// Create makes the directories, private to the user. The runtime directory may sit in a
// shared place (a tmux socket given with -S /tmp/x, or the temp directory's
// paneherd-<uid>): one that exists and is not ours, is a symlink, or that others may
// write is refused rather than used; one of ours that others may only read is closed.
func (d Dir) Create() error {
	if err := os.MkdirAll(d.State, 0o700); err != nil {
		return fmt.Errorf("paths: create %s: %w", d.State, err)
	}
	if d.Parent != "" {
		if err := makePrivate(d.Parent, fixParent); err != nil {
			return err
		}
	}
	return makePrivate(d.Runtime, fixRuntime)
}

// CreateSSH makes SSH, private to the user, as Create makes Runtime, and returns it: only
// a daemon with hosts to follow needs it.
func (d Dir) CreateSSH() (string, error) {
	ssh, parent := d.ssh()
	if parent != "" {
		if err := makePrivate(parent, fixParent); err != nil {
			return "", err
		}
	}
	return ssh, makePrivate(ssh, fixRuntime)
}

// Trusted checks, before a process reads the daemon's files or dials its sockets, that
// the runtime directory and its Parent are ours and that no one else may write them: else
// another user could stand in for the daemon (her snapshot, her socket taking a prompt).
// A directory that does not exist yet is no danger: no daemon runs there.
func (d Dir) Trusted() error {
	if d.Parent != "" {
		if _, err := checkDir(d.Parent, fixParent); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	ssh, parent := d.ssh()
	for _, dir := range []string{d.Runtime, parent, ssh} {
		if dir == "" {
			continue
		}
		if _, err := checkDir(dir, fixRuntime); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// What to do about a directory paneherd will not use.
const (
	fixRuntime = "remove it, and paneherd makes its own (or give tmux a socket in a directory of yours)"
	fixParent  = "remove it (one of another user's needs root), and paneherd makes its own; or give tmux a shorter socket path (-S, TMUX_TMPDIR), so that paneherd's files sit beside it"
)

// Untrusted is a directory or socket paneherd refuses to use, what is wrong with it and
// what to do.
type Untrusted struct {
	Path, Problem, Fix string
}

func (e *Untrusted) Error() string {
	return fmt.Sprintf("paths: %s %s, so paneherd will not use it: %s", e.Path, e.Problem, e.Fix)
}

// makePrivate makes dir 0700, or checks the one there and closes it to readers.
func makePrivate(dir, fix string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return fmt.Errorf("paths: create %s: %w", dir, err)
	}
	perm, err := checkDir(dir, fix)
	if err == nil && perm&0o077 != 0 {
		err = os.Chmod(dir, 0o700)
	}
	return err
}

// checkDir checks that dir is a real directory owned by us that no one else may write,
// and returns its permissions. It wraps fs.ErrNotExist for a missing one.
func checkDir(dir, fix string) (fs.FileMode, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return 0, fmt.Errorf("paths: %w", err)
	}
	if !fi.IsDir() {
		return 0, &Untrusted{dir, "is not a directory (a symlink?)", fix}
	}
	if err := owned(fi, dir, fix); err != nil {
		return 0, err
	}
	perm := fi.Mode().Perm()
	if perm&0o022 != 0 {
		return 0, &Untrusted{dir, fmt.Sprintf("may be written by others (mode %04o): anyone could have put files in it", perm), fix}
	}
	return perm, nil
}

// CheckSocket checks, before a client dials the socket at path, that it is a socket and
// ours: a socket of another user's would hear what is sent to the daemon. A missing one is
// no danger (nothing to dial).
func CheckSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	const fix = "remove it, and run 'paneherd start'"
	if fi.Mode().Type() != fs.ModeSocket {
		return &Untrusted{path, "is not a socket", fix}
	}
	return owned(fi, path, fix)
}

func owned(fi fs.FileInfo, path, fix string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return &Untrusted{path, fmt.Sprintf("belongs to uid %d, not to you (uid %d): another user may have made it to catch paneherd's files and sockets", st.Uid, os.Getuid()), fix}
	}
	return nil
}

// DB is the daemon's bbolt file; only the daemon opens it.
func (d Dir) DB() string { return filepath.Join(d.State, "state.db") }

// Log is the daemon's JSON log.
func (d Dir) Log() string { return filepath.Join(d.State, "daemon.log") }

// Stderr is where a daemon started in the background writes its stderr.
func (d Dir) Stderr() string { return filepath.Join(d.State, "daemon.stderr") }

// Snapshot is the JSON file `status` reads.
func (d Dir) Snapshot() string { return filepath.Join(d.Runtime, "snapshot.json") }

// Workers is the JSON file of the supervisor's registry, for `workers` and `status`.
func (d Dir) Workers() string { return filepath.Join(d.Runtime, "workers.json") }

// Lock is held by the running daemon for its whole life.
func (d Dir) Lock() string { return filepath.Join(d.Runtime, "daemon.lock") }

// Socket is where the daemon hears hook events.
func (d Dir) Socket() string { return filepath.Join(d.Runtime, "daemon.sock") }

// Query is where the daemon answers questions (history, notification tests, sends).
func (d Dir) Query() string { return filepath.Join(d.Runtime, "query.sock") }

// Stopped exists when the last daemon of the server ended on purpose (paneherd stop, a
// SIGTERM or Ctrl-C, the server exiting): the status bar and the hooks then leave the
// daemon off. A daemon that died otherwise (SIGKILL, a crash) leaves none, and is revived.
func (d Dir) Stopped() string { return filepath.Join(d.Runtime, "stopped") }

// Revived is touched at each attempt to revive a daemon, so one that dies at once is not
// started again at every status-bar redraw.
func (d Dir) Revived() string { return filepath.Join(d.Runtime, "revived") }

// SSH is the directory of ssh's control sockets, one per host of @paneherd-hosts
// (remote.NewConn): the daemon's follow stream holds each host's connection there, and
// the commands run to a host from this server find it there. In Runtime, unless that
// would make a control socket's path too long (ssh names it by a 40-character hash):
// then in /tmp/paneherd-<uid>, which is short everywhere.
func (d Dir) SSH() string {
	dir, _ := d.ssh()
	return dir
}

// maxSSHDir is the longest directory remote.NewConn takes for control sockets: a unix
// socket's path must fit 104 bytes on macOS and the BSDs with ssh's 40-character hash and
// the 17 it adds while it sets the socket up.
const maxSSHDir = 104 - 1 - 1 - 40 - 17

// ssh is SSH and the directory of paneherd's own that holds it outside Runtime ("" in it).
func (d Dir) ssh() (dir, parent string) {
	if dir := filepath.Join(d.Runtime, "ssh"); len(dir) <= maxSSHDir {
		return dir, ""
	}
	sum := sha256.Sum256([]byte(d.Runtime))
	parent = fmt.Sprintf("/tmp/paneherd-%d", os.Getuid())
	return filepath.Join(parent, hex.EncodeToString(sum[:8])+".ssh"), parent
}
