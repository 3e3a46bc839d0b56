// Package tmux talks to one tmux server by running the tmux client binary.
//
// Starting a tmux client is the cost of a tick (docs/performance.md#what-tmux-costs),
// so everything here batches: one list-panes call for every pane of the server, one
// chained invocation to capture many panes.
package tmux

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Server selects a tmux server the way tmux's own -L/-S flags do.
// The zero Server is the default server ("-L default").
type Server struct {
	Name   string // -L: socket name under ${TMUX_TMPDIR:-/tmp}/tmux-<uid>/
	Socket string // -S: socket path; wins over Name, as in tmux
	// Via, if set, runs commands that read no stdin instead of a tmux client process
	// (the daemon's control-mode client): a tmux client's start less each.
	Via Commander
	// Timeout, if set, bounds every command whose context has no deadline of its own: a
	// daemon's commands must not wait for ever on a hung server.
	Timeout time.Duration
}

// ServerFromEnv picks the server from command-line flags, falling back to
// the server this process runs inside ($TMUX is "socketpath,pid,session";
// run-shell children inherit it), and then to the default server.
func ServerFromEnv(name, socket string, getenv func(string) string) Server {
	if socket != "" || name != "" {
		return Server{Name: name, Socket: socket}
	}
	if path, _, _ := strings.Cut(getenv("TMUX"), ","); path != "" {
		return Server{Socket: path}
	}
	return Server{}
}

// SocketPath is the path of the server's socket.
func (s Server) SocketPath() string {
	return socketPath(s, os.Getenv, os.Getuid())
}

func socketPath(s Server, getenv func(string) string, uid int) string {
	if s.Socket != "" {
		return s.Socket
	}
	dir := getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	// tmux realpath()s the socket directory, so $TMUX holds the resolved
	// path; resolve ours too or -L and $TMUX would name one server twice.
	dir = filepath.Join(dir, "tmux-"+strconv.Itoa(uid))
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	return filepath.Join(dir, s.label())
}

func (s Server) label() string {
	if s.Name == "" {
		return "default"
	}
	return s.Name
}

// Key is a short, stable, filesystem-safe name for the server, for a
// per-server state directory: the socket's base name plus a hash of its
// full path, so two servers with the same name in different dirs differ.
func (s Server) Key() string {
	path := s.SocketPath()
	sum := sha256.Sum256([]byte(path))
	return safeName(filepath.Base(path)) + "-" + hex.EncodeToString(sum[:4])
}

// safeName keeps [A-Za-z0-9._-] and replaces anything else, capped so the
// key stays short even for a long socket name.
func safeName(s string) string {
	const maxLen = 32
	b := []byte(s)
	for i, c := range b {
		if !isSafe(c) {
			b[i] = '_'
		}
	}
	if len(b) > maxLen {
		b = b[:maxLen]
	}
	if len(b) == 0 || b[0] == '.' {
		return "_" + string(b)
	}
	return string(b)
}

func isSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-'
}

// Args prefixes args with the flags of every tmux client paneherd starts: -u, and the
// flags that select this server.
func (s Server) Args(args ...string) []string {
	// -u: tmux 3.3a takes a client started without a UTF-8 locale (cron, systemd, ssh
	// host cmd, an MCP client's stripped environment) for one that cannot show UTF-8,
	// and sanitises what it prints: the \x1f field separators come back as '_'.
	// Always -L or -S: without one, tmux would follow $TMUX, not the default server
	// this Server stands for.
	prefix := []string{"-u", "-L", s.label()}
	if s.Socket != "" {
		prefix = []string{"-u", "-S", s.Socket}
	}
	return append(prefix, args...)
}
