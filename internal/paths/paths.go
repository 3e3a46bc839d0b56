// Package paths says where paneherd keeps its files for one tmux server.
//
// Two places: the daemon's lock, sockets and snapshot sit beside the tmux server's own
// socket (in tmux's per-user 0700 directory), so every process that reaches the server
// finds the same daemon whatever its environment says; the database and logs, which
// outlive the server, sit in $XDG_STATE_HOME/paneherd/<server-key>/.
package paths

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Dir is the pair of directories of one tmux server.
type Dir struct {
	State   string // persistent: database, log
	Runtime string // live: lock, sockets, snapshot
}

// maxSocketPath keeps socket paths under the kernel's limit for sun_path (108 bytes on
// Linux, 104 on the BSDs).
const maxSocketPath = 100

// ForServer returns the directories for the tmux server at socketPath, with key naming
// its state directory.
func ForServer(socketPath, key string, getenv func(string) string) (Dir, error) {
	base, err := XDG(getenv, "XDG_STATE_HOME", ".local/state")
	if err != nil {
		return Dir{}, err
	}
	runtime := socketPath + ".paneherd"
	if len(filepath.Join(runtime, "query.sock")) > maxSocketPath {
		sum := sha256.Sum256([]byte(socketPath))
		runtime = filepath.Join(os.TempDir(), fmt.Sprintf("paneherd-%d", os.Getuid()), hex.EncodeToString(sum[:8]))
	}
	return Dir{State: filepath.Join(base, "paneherd", key), Runtime: runtime}, nil
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

// Create makes both directories, private to the user. The runtime directory may sit in a
// shared temp directory (a tmux socket given with -S /tmp/x): one that exists and is not
// ours, or is a symlink, is refused rather than used.
func (d Dir) Create() error {
	if err := os.MkdirAll(d.State, 0o700); err != nil {
		return fmt.Errorf("paths: create %s: %w", d.State, err)
	}
	if err := os.MkdirAll(filepath.Dir(d.Runtime), 0o700); err != nil {
		return fmt.Errorf("paths: create %s: %w", filepath.Dir(d.Runtime), err)
	}
	if err := os.Mkdir(d.Runtime, 0o700); err != nil && !os.IsExist(err) {
		return fmt.Errorf("paths: create %s: %w", d.Runtime, err)
	}
	return private(d.Runtime)
}

// private checks that dir is a real directory owned by us and closed to others.
func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("paths: %s is not a directory (a symlink?); remove it", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("paths: %s belongs to uid %d, not us; remove it", dir, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		return os.Chmod(dir, 0o700)
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
