// Package query is how front ends ask the daemon what only it knows or does: history
// lives in its database, which no other process opens, and sends and answers go through
// its delivery engine. One JSON request and one JSON answer per connection on a unix
// stream socket beside the daemon's other files. Closing the connection early withdraws
// the question: the daemon cancels the work it started for it (Ctrl-C on `send`).
package query

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/paths"
)

// The questions the daemon answers (Request.Op).
const (
	OpHistory    = "history"     // Request.PaneID, Limit (Body: WorkerAsk for a worker by name) -> History
	OpSend       = "send"        // Body: SendAsk -> deliver.Result
	OpAnswer     = "answer"      // Body: deliver.AnswerRequest -> deliver.Result
	OpNotifyTest = "notify-test" // -> NotifyTestResult
	OpCreate     = "create"      // Body: CreateAsk -> store.Worker
	OpRetire     = "retire"      // Body: WorkerAsk -> store.Worker (as it was)
	OpContinue   = "continue"    // Body: WorkerAsk -> store.Worker
	OpMetrics    = "metrics"     // -> Metrics
	OpAbout      = "about"       // -> About
	// OpSnapshot: Body SnapshotAsk -> Published: the snapshot once it is not the one the
	// asker has, else after SnapshotAsk.Wait with none (`paneherd follow`'s long poll).
	OpSnapshot = "snapshot"
)

// Request asks the daemon something.
type Request struct {
	Op     string          `json:"op"`
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

// readLimit bounds how long the daemon waits for a question once connected: a client
// that connects and says nothing must not hold a goroutine.
const readLimit = 10 * time.Second

// maxRequest bounds a question's size: the largest any front end asks is a send, whose
// prompt is at most 64 KiB (deliver.MaxPayload), some 400 KiB once JSON escapes it. The
// decoder holds what it reads, so an unbounded one would hold anything a client sends.
const maxRequest = 1 << 20

// Ask sends req to the daemon listening at socket and decodes the answer's body into
// out. It ends when the answer comes or ctx ends (ctx.Err() then, and the daemon drops
// the work); the caller gives ctx its time limit. An answer read in full is returned even
// if ctx ended meanwhile: the daemon did the work.
func Ask(ctx context.Context, socket string, req Request, out any) error {
	if err := paths.CheckSocket(socket); err != nil {
		return err
	}
	var d net.Dialer
	dialCtx, cancel := context.WithTimeout(ctx, time.Second)
	conn, err := d.DialContext(dialCtx, "unix", socket)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	defer conn.Close()
	// Closing the connection unblocks the read below at once when ctx ends.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	a, err := exchange(conn, req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the read failed because the connection was closed above
		}
		return err
	}
	if a.Error != "" {
		return errors.New(a.Error)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(a.Body, out)
}

func exchange(conn net.Conn, req Request) (Answer, error) {
	var a Answer
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return a, fmt.Errorf("query: send: %w", err)
	}
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&a); err != nil {
		return a, fmt.Errorf("query: read answer: %w", err)
	}
	return a, nil
}

// Handler answers one request with a body to encode, or an error to report. Its ctx
// ends when the asker hangs up or the server closes.
type Handler func(ctx context.Context, req Request) (any, error)

// Server answers questions on a socket; Close stops it and waits for the answers under
// way.
type Server struct {
	l      net.Listener
	socket string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Serve answers requests on socket with h until Close. The caller holds the daemon lock,
// so an existing socket file is a crashed daemon's leftover.
func Serve(socket string, h Handler) (*Server, error) {
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return nil, fmt.Errorf("query: listen %s: %w", socket, err)
	}
	os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("query: listen %s: %w", socket, err)
	}
	os.Chmod(socket, 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{l: l, socket: socket, cancel: cancel}
	s.wg.Add(1)
	go s.accept(ctx, h)
	return s, nil
}

// Close stops accepting, cancels the answers under way and waits until they have ended,
// so nothing they do (an audit record) comes after it.
func (s *Server) Close() {
	s.l.Close()
	s.cancel()
	s.wg.Wait()
	os.Remove(s.socket)
	os.Remove(filepath.Dir(s.socket)) // a shared temp directory, once empty (paths.Dir)
}

func (s *Server) accept(ctx context.Context, h Handler) {
	defer s.wg.Done()
	for {
		conn, err := s.l.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			answer(ctx, conn, h)
		}()
	}
}

func answer(ctx context.Context, conn net.Conn, h Handler) {
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(readLimit))
	req, err := readRequest(conn)
	if err != nil {
		json.NewEncoder(conn).Encode(Answer{Error: err.Error()})
		return
	}
	conn.SetReadDeadline(time.Time{}) // the handler takes as long as its op needs
	ctx, cancel := context.WithCancel(ctx)
	hungUp := watchHangUp(conn, cancel)
	defer func() { conn.Close(); <-hungUp }()
	var a Answer
	body, err := h(ctx, req)
	cancel()
	if err != nil {
		a.Error = err.Error()
	} else if a.Body, err = json.Marshal(body); err != nil {
		a.Error = err.Error()
	}
	json.NewEncoder(conn).Encode(a)
}

// readRequest reads one question of at most maxRequest bytes. Its error quotes only the
// question's first bytes: the asker knows the rest, and a log or terminal need not.
func readRequest(conn net.Conn) (Request, error) {
	limited := &io.LimitedReader{R: conn, N: maxRequest}
	head := &headReader{r: limited}
	var req Request
	err := json.NewDecoder(bufio.NewReader(head)).Decode(&req)
	switch {
	case err == nil:
		return req, nil
	case limited.N == 0:
		return req, fmt.Errorf("query: a request over %d bytes refused (it starts %s)", maxRequest, Excerpt(string(head.head)))
	}
	return req, fmt.Errorf("query: bad request: %v (it starts %s)", err, Excerpt(string(head.head)))
}

// headReader keeps the first bytes read through it, for an error to quote (one more than
// Excerpt quotes, so it can tell there was more).
type headReader struct {
	r    io.Reader
	head []byte
}

func (h *headReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if keep := excerptLen + 1 - len(h.head); keep > 0 {
		h.head = append(h.head, p[:min(n, keep)]...)
	}
	return n, err
}

// excerptLen is how much of what a client sent an error quotes.
const excerptLen = 40

// Excerpt quotes the start of s, cut to a few bytes, for an error about a request: quoting
// the whole of what a client sent would repeat up to maxRequest bytes into a log.
func Excerpt(s string) string {
	if len(s) <= excerptLen {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:excerptLen]) + "…"
}

// watchHangUp cancels the question's work when the asker closes its end: an asker says
// nothing after its request, so any read that returns means it has gone. The returned
// channel is closed once the watching has ended (the connection closed).
func watchHangUp(conn net.Conn, cancel context.CancelFunc) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(io.Discard, conn)
		cancel()
	}()
	return done
}
