package query

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
)

// TestErrorKindsCrossTheSocket: the asker tells a daemon's errors apart with errors.Is,
// not by their words, and the words arrive unchanged.
func TestErrorKindsCrossTheSocket(t *testing.T) {
	_, socket := serve(t, Handlers{
		"find": func(context.Context, wire.Request) (any, error) {
			return nil, wire.Errorf(wire.ErrNoTarget, "no managed worker %q", "api")
		},
		"wrapped": func(context.Context, wire.Request) (any, error) {
			return nil, errors.Join(errors.New("retire"), wire.ErrPaneGone)
		},
		"fail": func(context.Context, wire.Request) (any, error) { return nil, errors.New("disk full") },
	})
	for _, tt := range []struct {
		op, words string
		kind      *wire.Error
	}{
		{"find", `no managed worker "api"`, wire.ErrNoTarget},
		{"wrapped", "retire\nthe pane is gone", wire.ErrPaneGone},
		{"fail", "disk full", wire.ErrFailed},
		{"gone", `unknown question "gone" (a paneherd of another version?)`, wire.ErrUnknownOp},
	} {
		t.Run(tt.op, func(t *testing.T) {
			err := Ask(context.Background(), socket, wire.Request{Op: tt.op}, nil)
			if !errors.Is(err, tt.kind) || err.Error() != tt.words {
				t.Errorf("Ask(%s) = %v; want %q of the kind %s", tt.op, err, tt.words, tt.kind.Code)
			}
			for _, other := range []*wire.Error{wire.ErrNoTarget, wire.ErrPaneGone, wire.ErrFailed, wire.ErrUnknownOp, wire.ErrOlderDaemon} {
				if other != tt.kind && errors.Is(err, other) {
					t.Errorf("Ask(%s) = %v, which is also %s", tt.op, err, other.Code)
				}
			}
		})
	}
}

// TestAnOlderDaemonsUnknownQuestion: an error answer without a code comes from a
// daemon older than codes; its words are kept, and its "unknown question" is ErrUnknownOp.
func TestAnOlderDaemonsUnknownQuestion(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "pq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "query.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		var req wire.Request
		json.NewDecoder(conn).Decode(&req)
		conn.Write([]byte(`{"error":"unknown question \"about\" (a paneherd of another version?)"}` + "\n"))
	}()
	err = Ask(context.Background(), socket, wire.Request{Op: wire.OpAbout}, nil)
	if !errors.Is(err, wire.ErrUnknownOp) || errors.Is(err, wire.ErrOlderDaemon) ||
		err.Error() != `unknown question "about" (a paneherd of another version?)` {
		t.Errorf("an older daemon's unknown question = %v; want ErrUnknownOp in its own words", err)
	}
}

// TestAnOpWithoutItsBodyIsRefused: an operation that acts on its body is never run with a
// zero one; one whose body may be left out is.
func TestAnOpWithoutItsBodyIsRefused(t *testing.T) {
	type ask struct {
		N int `json:"n"`
	}
	var ran atomic.Int32
	double := func(_ context.Context, _ wire.Request, a ask) (int, error) {
		ran.Add(1)
		return 2 * a.N, nil
	}
	_, socket := serve(t, Handlers{"act": WithBody(double), "maybe": WithOptionalBody(double)})
	for _, tt := range []struct {
		name, op, body string
		want           int
		kind           *wire.Error
	}{
		{"no body", "act", "", 0, wire.ErrBadRequest},
		{"a body of another shape", "act", `"seven"`, 0, wire.ErrBadRequest},
		{"its body", "act", `{"n":7}`, 14, nil},
		{"an optional body left out", "maybe", "", 0, nil},
		{"an optional body of another shape", "maybe", `[1]`, 0, wire.ErrBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ran.Store(0)
			var got int
			err := Ask(context.Background(), socket, wire.Request{Op: tt.op, Body: json.RawMessage(tt.body)}, &got)
			switch {
			case tt.kind != nil && (!errors.Is(err, tt.kind) || ran.Load() > 0):
				t.Errorf("Ask = %v (the handler ran %d times); want %s, the handler not run", err, ran.Load(), tt.kind.Code)
			case tt.kind == nil && (err != nil || got != tt.want):
				t.Errorf("Ask = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}
