// Package paths says where paneherd keeps its files for one tmux server.
package paths

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// Dir is the state directory of one tmux server:
// $XDG_STATE_HOME/paneherd/<server-key>/ (default ~/.local/state).
type Dir string

// ForServer returns the state directory for the server key.
func ForServer(key string, getenv func(string) string) (Dir, error) {
	base, err := XDG(getenv, "XDG_STATE_HOME", ".local/state")
	if err != nil {
		return "", err
	}
	return Dir(filepath.Join(base, "paneherd", key)), nil
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

// Create makes the directory, private to the user: it holds screen summaries.
func (d Dir) Create() error {
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("paths: create %s: %w", d, err)
	}
	return nil
}

// DB is the daemon's bbolt file; only the daemon opens it.
func (d Dir) DB() string { return filepath.Join(string(d), "state.db") }

// Snapshot is the JSON file `status` reads.
func (d Dir) Snapshot() string { return filepath.Join(string(d), "snapshot.json") }

// Lock is held by the running daemon for its whole life.
func (d Dir) Lock() string { return filepath.Join(string(d), "daemon.lock") }

// maxSocketPath keeps socket paths under the kernel's limit for sun_path (108 bytes on
// Linux, 104 on the BSDs).
const maxSocketPath = 100

// Socket is the daemon's unix socket: in the state directory, unless that path is too
// long for a socket (a deep HOME), then in a private directory under the system's temp
// directory, named by a hash of the state directory so every process finds the same one.
func (d Dir) Socket() string { return d.socket("daemon.sock") }

// Query is the daemon's socket for questions (history, notification tests).
func (d Dir) Query() string { return d.socket("query.sock") }

func (d Dir) socket(name string) string {
	p := filepath.Join(string(d), name)
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(d))
	return filepath.Join(os.TempDir(), fmt.Sprintf("paneherd-%d", os.Getuid()), hex.EncodeToString(sum[:8])+"-"+name)
}

// Stderr is where a daemon started in the background writes its stderr.
func (d Dir) Stderr() string { return filepath.Join(string(d), "daemon.stderr") }

// Log is the daemon's JSON log.
func (d Dir) Log() string { return filepath.Join(string(d), "daemon.log") }
