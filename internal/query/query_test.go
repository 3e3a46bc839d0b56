package query

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// serveOp answers op with h on a socket of its own.
func serveOp(t *testing.T, op string, h Handler) (*Server, string) {
	t.Helper()
	return serve(t, Handlers{op: h})
}

// serve answers with hs on a socket of its own (a short path: unix socket paths over ~100
// bytes fail), closed when the test ends.
func serve(t *testing.T, hs Handlers) (*Server, string) {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "pq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "rt", "query.sock")
	s, err := Serve(socket, hs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, socket
}

// within waits for ch to close, or fails the test after a deadline.
func within(t *testing.T, ch <-chan struct{}, failure string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal(failure)
	}
}

// TestHangUpCancelsTheWork: an asker that gives up (Ctrl-C on send) ends the work the
// daemon started for it.
func TestHangUpCancelsTheWork(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	_, socket := serveOp(t, "wait", func(ctx context.Context, req wire.Request) (any, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	})
	ctx, hangUp := context.WithCancel(context.Background())
	asked := make(chan error, 1)
	go func() { asked <- Ask(ctx, socket, wire.Request{Op: "wait"}, nil) }()
	within(t, started, "the handler did not start")
	hangUp()
	within(t, cancelled, "the handler's ctx did not end when its asker hung up")
	if err := <-asked; !errors.Is(err, context.Canceled) {
		t.Errorf("Ask after its ctx ended = %v, want context.Canceled", err)
	}
}

// TestCloseWaitsForTheWorkUnderWay: Close cancels the handlers under way and returns only
// once they have ended, so nothing they do comes after it (an audit after the store
// closed).
func TestCloseWaitsForTheWorkUnderWay(t *testing.T) {
	started, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	s, socket := serveOp(t, "slow", func(ctx context.Context, req wire.Request) (any, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		<-release // the work takes a while to wind down
		finished.Store(true)
		return nil, ctx.Err()
	})
	asked := make(chan struct{})
	go func() { Ask(context.Background(), socket, wire.Request{Op: "slow"}, nil); close(asked) }()
	within(t, started, "the handler did not start")
	closed := make(chan bool, 1)
	go func() { s.Close(); closed <- finished.Load() }()
	within(t, cancelled, "Close did not cancel the handler under way")
	select {
	case <-closed:
		t.Fatal("Close returned while a handler was still running")
	default:
	}
	close(release)
	select {
	case done := <-closed:
		if !done {
			t.Error("Close returned before the handler under way had finished")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return once the handler had finished")
	}
	within(t, asked, "the asker still waits after the server closed")
}

func TestAskWithNoDaemon(t *testing.T) {
	err := Ask(context.Background(), filepath.Join(t.TempDir(), "query.sock"), wire.Request{Op: wire.OpHistory}, nil)
	if !errors.Is(err, wire.ErrNoDaemon) {
		t.Errorf("Ask with nobody listening = %v, want ErrNoDaemon", err)
	}
}

// endsOnAnswer is an asker's ctx that ends just as the answer comes: it reports itself
// ended once the handler has answered. (Its Done never closes, so the end cannot cut the
// exchange short.)
type endsOnAnswer struct {
	context.Context
	answered *atomic.Bool
}

func (c endsOnAnswer) Err() error {
	if c.answered.Load() {
		return context.Canceled
	}
	return nil
}

// TestAnswerReadIsKeptWhenTheCtxEnds: an answer read in full is the asker's even if its
// ctx ended meanwhile; a send reported "interrupted" after it was DELIVERED invites
// sending it twice.
func TestAnswerReadIsKeptWhenTheCtxEnds(t *testing.T) {
	var answered atomic.Bool
	_, socket := serveOp(t, wire.OpSend, func(ctx context.Context, req wire.Request) (any, error) {
		answered.Store(true)
		return map[string]string{"outcome": "DELIVERED"}, nil
	})
	var got map[string]string
	err := Ask(endsOnAnswer{context.Background(), &answered}, socket, wire.Request{Op: wire.OpSend}, &got)
	if err != nil || got["outcome"] != "DELIVERED" {
		t.Errorf("Ask = %v, %v; want the answer read", got, err)
	}
}

// TestAskRefusesASocketNotOurs: a socket another user put where the daemon's should be
// would hear the prompt a send carries; the asker refuses it before it says anything.
func TestAskRefusesASocketNotOurs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a socket to another user needs root")
	}
	var asked atomic.Bool
	_, socket := serveOp(t, "x", func(ctx context.Context, req wire.Request) (any, error) {
		asked.Store(true)
		return "ok", nil
	})
	if err := Ask(context.Background(), socket, wire.Request{Op: "x"}, nil); err != nil {
		t.Fatalf("our own socket: %v", err)
	}
	asked.Store(false)
	if err := os.Chown(socket, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := Ask(context.Background(), socket, wire.Request{Op: "x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") || !strings.Contains(err.Error(), socket) {
		t.Errorf("Ask on a socket of uid 65534 = %v, want a refusal naming it and its owner", err)
	}
	if asked.Load() {
		t.Error("the request reached a socket not ours")
	}
}

// TestRequestsAreBoundedAndQuotedShort: a request over 1 MiB is refused once the limit is
// read, not held whole, and a malformed one is answered; either error quotes only the
// request's first bytes.
func TestRequestsAreBoundedAndQuotedShort(t *testing.T) {
	var handled atomic.Bool
	_, socket := serveOp(t, "x", func(ctx context.Context, req wire.Request) (any, error) {
		handled.Store(true)
		return nil, nil
	})
	for _, tt := range []struct {
		name, request, want string
	}{
		{"over the limit", `{"op":"` + strings.Repeat("a", 4<<20), "over 1048576 bytes refused"},
		{"not JSON", "hello " + strings.Repeat("b", 1000) + "\n", "bad request: invalid character 'h'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go conn.Write([]byte(tt.request)) // the daemon stops reading at the limit
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			var a wire.Answer
			if err := json.NewDecoder(conn).Decode(&a); err != nil {
				t.Fatalf("no answer: %v", err)
			}
			if !strings.Contains(a.Error, tt.want) || len(a.Error) > 200 {
				t.Errorf("answer %q (%d bytes), want %q and no more than a few bytes of the request", a.Error, len(a.Error), tt.want)
			}
			if a.Code != wire.ErrBadRequest.Code {
				t.Errorf("answer's code %q, want %q", a.Code, wire.ErrBadRequest.Code)
			}
		})
	}
	if handled.Load() {
		t.Error("a bad request reached the handler")
	}
}
