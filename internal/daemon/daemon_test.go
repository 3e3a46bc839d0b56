package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

// rig is a daemon on a private tmux server, run by the test.
type rig struct {
	t    *testing.T
	tmux *tmuxtest.Handle
	dir  paths.Dir
	cfg  Config
	done chan error
	stop context.CancelFunc
}

func newRig(t *testing.T, observer string) *rig {
	t.Helper()
	h := tmuxtest.New(t)
	runtimeDir, err := os.MkdirTemp("/tmp", "phd") // sockets want short paths
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtimeDir) })
	r := &rig{t: t, tmux: h, dir: paths.Dir{State: t.TempDir(), Runtime: filepath.Join(runtimeDir, "rt")}}
	h.Run("set-option", "-g", "@paneherd-observer", observer)
	r.cfg = Config{Server: h.Server, Dir: r.dir, LogLevel: "debug", Tick: 100 * time.Millisecond}
	return r
}

// start runs the daemon until the test stops it, and waits for its first snapshot.
func (r *rig) start() {
	r.t.Helper()
	values, err := options.Load(context.Background(), r.tmux.Server)
	if err != nil {
		r.t.Fatal(err)
	}
	r.cfg.Values = values
	ctx, cancel := context.WithCancel(context.Background())
	r.stop, r.done = cancel, make(chan error, 1)
	go func() { r.done <- Run(ctx, r.cfg) }()
	r.t.Cleanup(func() {
		cancel()
		<-r.done
	})
	r.waitFor("the first snapshot", func() bool { _, err := os.Stat(r.dir.Snapshot()); return err == nil })
}

// shutdown stops the daemon and waits for Run to return.
func (r *rig) shutdown() error {
	r.t.Helper()
	r.stop()
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		r.t.Fatal("the daemon did not stop within 30 s")
		return nil
	}
}

func (r *rig) waitFor(what string, cond func() bool) {
	r.t.Helper()
	if !tmuxtest.Poll(20*time.Second, cond) {
		log, _ := os.ReadFile(r.dir.Log())
		r.t.Fatalf("timed out waiting for %s; daemon log:\n%s", what, tail(string(log), 30))
	}
}

func (r *rig) paneState(id string) string {
	snap, err := wire.ReadSnapshot(r.dir.Snapshot())
	if err != nil {
		return ""
	}
	for _, p := range snap.Panes {
		if p.ID == id {
			return p.State
		}
	}
	return ""
}

func (r *rig) log() string {
	b, _ := os.ReadFile(r.dir.Log())
	return string(b)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// silentPane is a READY-looking prompt that swallows whatever it is sent and never
// changes: a send to it waits out its acknowledgement and its retries. What it was sent
// goes to the returned file.
func silentPane(t *testing.T, h *tmuxtest.Handle) (string, string) {
	got := filepath.Join(t.TempDir(), "got")
	os.WriteFile(got, nil, 0o600)
	id := h.NewSession("w", "printf '$ '; stty raw -echo; exec cat >> "+got)
	h.Run("set-option", "-p", "-t", id, "@paneherd-pack", "shell")
	return id, got
}

// TestShutdownIsOrdered stops a daemon while a send is under way. The send must end and
// be audited before the store closes, the metrics listener must close before it, the
// status option must say off, the steps must come in order, nothing may write to the
// closed store, and no goroutine of the daemon may be left.
func TestShutdownIsOrdered(t *testing.T) {
	for _, observer := range []string{"poll", "control"} {
		t.Run(observer, func(t *testing.T) {
			r := newRig(t, observer)
			pane, got := silentPane(t, r.tmux)
			r.tmux.Run("set-option", "-g", "@paneherd-metrics-listen", "127.0.0.1:0")
			r.start()
			metricsAt := r.metricsAddr()
			r.waitFor(pane+" READY", func() bool { return r.paneState(pane) == "READY" })
			if v := r.tmux.Run("show-options", "-gqv", "@paneherd_status"); v == "" {
				t.Fatalf("the daemon pushed no status line")
			}

			asked := make(chan error, 1)
			go func() {
				body, _ := json.Marshal(wire.SendAsk{SendRequest: wire.SendRequest{ID: "t-inflight", PaneID: pane, Text: "hello", Force: true, Reason: "test"}})
				var res wire.Result
				asked <- query.Ask(context.Background(), r.dir.Query(), wire.Request{Op: wire.OpSend, Body: body}, &res)
			}()
			// The pane has the prompt: the send now waits for an acknowledgement that
			// never comes.
			r.waitFor("the paste", func() bool { b, _ := os.ReadFile(got); return bytes.Contains(b, []byte("hello")) })

			if err := r.shutdown(); err != nil {
				t.Fatalf("Run: %v", err)
			}
			select {
			case <-asked: // answered, or hung up on: either way it did not outlive the daemon
			case <-time.After(5 * time.Second):
				t.Fatal("the send's asker still waits after the daemon stopped")
			}

			log := r.log()
			steps := []string{"shutdown: observer stopped", "shutdown: sends, queue and notifications settled",
				"metrics no longer served", "shutdown: last state committed", "shutdown: status line says off",
				"shutdown: store closed", `"stopped"`}
			at := -1
			for _, s := range steps {
				i := strings.Index(log, s)
				switch {
				case i < 0:
					t.Errorf("%q is missing from the log:\n%s", s, tail(log, 20))
					continue
				case i < at:
					t.Errorf("%q comes out of order in the log:\n%s", s, tail(log, 20))
				}
				at = i
			}
			if strings.Contains(log, "database not open") || strings.Contains(log, `"level":"error"`) {
				t.Errorf("errors in the log (a write after the store closed?):\n%s", tail(log, 20))
			}
			if conn, err := net.Dial("tcp", metricsAt); err == nil {
				conn.Close()
				t.Errorf("metrics still served at %s after shutdown", metricsAt)
			}
			if v := r.tmux.Run("show-options", "-gqv", "@paneherd_status"); v != statusline.Off {
				t.Errorf("the status option is %q after shutdown, want %q", v, statusline.Off)
			}
			st, err := store.Open(r.dir.DB(), store.Options{})
			if err != nil {
				t.Fatalf("the store is still held after Run returned: %v", err)
			}
			defer st.Close()
			trig, _ := st.Triggers(pane, 0)
			if len(trig) != 1 || trig[0].ID != "t-inflight" {
				t.Errorf("the send under way was not audited before the store closed: %+v", trig)
			} else if trig[0].Outcome != string(outcome.Interrupted) {
				// Pasted, submitted, never taken by the silent pane: not an ACK_TIMEOUT,
				// which would have a managed worker restarted.
				t.Errorf("the send under way was audited %s (%s); want INTERRUPTED", trig[0].Outcome, trig[0].Detail)
			}
			panes, _ := st.Panes()
			if len(panes) != 1 || panes[0].State != "READY" {
				t.Errorf("the last state was not committed: %+v", panes)
			}
			noGoroutinesLeft(t)
		})
	}
}

// noGoroutinesLeft fails if a goroutine of the daemon's parts is still running.
func noGoroutinesLeft(t *testing.T) {
	t.Helper()
	parts := []string{"/internal/daemon.", "/internal/query.", "/hooks.", "/internal/notify.", "/internal/observe.",
		"/internal/controlmode.", "/internal/watcher.", "/internal/deliver.", "/internal/metrics."}
	var left string
	ok := tmuxtest.Poll(5*time.Second, func() bool {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		left = ""
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "noGoroutinesLeft") {
				continue
			}
			for _, p := range parts {
				if strings.Contains(g, p) && !strings.Contains(g, "_test.go") {
					left += g + "\n\n"
					break
				}
			}
		}
		return left == ""
	})
	if !ok {
		t.Errorf("goroutines left after Run returned:\n%s", left)
	}
}

// TestSecondDaemonFailsFast: one daemon per server.
func TestSecondDaemonFailsFast(t *testing.T) {
	r := newRig(t, "poll")
	r.tmux.NewSession("w", "")
	r.start()
	err := Run(context.Background(), r.cfg)
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second Run = %v, want already running", err)
	}
}

// TestEndsWhenTheServerExits: the daemon's job is done when tmux goes.
func TestEndsWhenTheServerExits(t *testing.T) {
	r := newRig(t, "control")
	r.tmux.NewSession("w", "")
	r.start()
	r.tmux.Server.Run(context.Background(), nil, "kill-server")
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the daemon still runs 20 s after its tmux server exited; log:\n%s", tail(r.log(), 20))
	}
	if _, err := os.Stat(r.dir.Snapshot()); err == nil {
		t.Errorf("the snapshot outlives the daemon")
	}
}

// TestUnknownQuestionIsQuotedShort: the refusal of an op the daemon does not know quotes a
// few bytes of it, not the whole of what the asker sent.
func TestUnknownQuestionIsQuotedShort(t *testing.T) {
	r := newRig(t, "poll")
	r.tmux.NewSession("w", "")
	r.start()
	err := query.Ask(context.Background(), r.dir.Query(), wire.Request{Op: strings.Repeat("x", 500<<10)}, nil)
	if !errors.Is(err, wire.ErrUnknownOp) || len(err.Error()) > 200 {
		t.Errorf("Ask with a 500 KiB op: error of %d bytes, want an unknown question in a few", len(fmt.Sprint(err)))
	}
}
