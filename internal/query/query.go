// Package query is how CLIs ask the daemon what only it knows: history lives in its
// database, which no other process opens. One JSON request and one JSON answer per
// connection on a unix stream socket beside the daemon's other files.
package query

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Request asks the daemon something.
type Request struct {
	Op     string          `json:"op"` // "history", "notify-test", "send", "answer"
	PaneID string          `json:"pane_id,omitempty"`
	Limit  int             `json:"limit,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"` // what the op needs beyond these
}

// Answer is the daemon's reply: Error, or a JSON body whose shape depends on Op.
type Answer struct {
	Error string          `json:"error,omitempty"`
	Body  json.RawMessage `json:"body,omitempty"`
}

// ErrNoDaemon is returned by Ask when no daemon answers on the socket.
var ErrNoDaemon = errors.New("no paneherd daemon answers")

// timeout bounds a question: the daemon answers from its database in milliseconds, and
// a notification test waits for the desktop at most a few seconds. A send, which may
// defer to a person for a minute, says how long it may take (AskFor).
const timeout = 10 * time.Second

// Ask sends req to the daemon listening at socket and decodes the body into out.
func Ask(socket string, req Request, out any) error { return AskFor(socket, req, out, timeout) }

// AskFor is Ask with its own time limit.
func AskFor(socket string, req Request, out any, timeout time.Duration) error {
	conn, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return fmt.Errorf("query: send: %w", err)
	}
	var a Answer
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&a); err != nil {
		return fmt.Errorf("query: read answer: %w", err)
	}
	if a.Error != "" {
		return errors.New(a.Error)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(a.Body, out)
}

// Handler answers one request with a body to encode, or an error to report.
type Handler func(ctx context.Context, req Request) (any, error)

// Serve answers requests on socket until ctx ends. The caller holds the daemon lock, so
// an existing socket file is a crashed daemon's leftover.
func Serve(ctx context.Context, socket string, h Handler) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return nil, fmt.Errorf("query: listen %s: %w", socket, err)
	}
	os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("query: listen %s: %w", socket, err)
	}
	os.Chmod(socket, 0o600)
	go accept(ctx, l, h)
	return func() {
		l.Close()
		os.Remove(socket)
		os.Remove(filepath.Dir(socket)) // a shared temp directory, once empty (paths.Dir)
	}, nil
}

func accept(ctx context.Context, l net.Listener, h Handler) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go answer(ctx, conn, h)
	}
}

func answer(ctx context.Context, conn net.Conn, h Handler) {
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(timeout))
	var req Request
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&req); err != nil {
		return
	}
	conn.SetReadDeadline(time.Time{}) // the handler takes as long as its op needs
	var a Answer
	body, err := h(ctx, req)
	if err != nil {
		a.Error = err.Error()
	} else if a.Body, err = json.Marshal(body); err != nil {
		a.Error = err.Error()
	}
	json.NewEncoder(conn).Encode(a)
}
