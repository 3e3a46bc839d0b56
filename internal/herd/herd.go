// Package herd is the herd of panes a daemon watches, as front ends (the CLI, key
// bindings, an MCP server, a supervisor) see and drive it: the daemon's snapshot for
// what it sees, its socket for what only it does (send, answer a dialog, history, a
// notification test, metrics), waiting for a pane, and starting and stopping the
// daemon. Every front end goes through here, so each job has one code path.
package herd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

// Daemon is the daemon of one tmux server, as a front end reaches it.
type Daemon struct {
	Server tmux.Server
	Dir    paths.Dir
	// RevivalGrace is how long a wait rides out a daemon or snapshot that is missing;
	// 0 is snapshotGrace.
	RevivalGrace time.Duration
}

// Of returns the daemon of server s; getenv gives XDG_STATE_HOME and HOME.
func Of(s tmux.Server, getenv func(string) string) (Daemon, error) {
	dir, err := paths.ForServer(s.SocketPath(), s.Key(), getenv)
	return Daemon{Server: s, Dir: dir}, err
}

// PID is the running daemon's pid, or 0 when none runs or its directory is not the
// user's own (paths.Dir.Trusted): a lock there names someone else's process.
func (d Daemon) PID() int {
	pid, _ := d.holder()
	return pid
}

// holder is PID, with the error of a directory not to be trusted.
func (d Daemon) holder() (int, error) {
	if err := d.Dir.Trusted(); err != nil {
		return 0, err
	}
	return daemonlock.Holder(d.Dir.Lock()), nil
}

// Snapshot is what the daemon last published, but only if a daemon is alive to keep it
// true. With none, the error wraps ErrNoDaemon and says whether the tmux server runs.
func (d Daemon) Snapshot() (wire.Snapshot, error) {
	pid, err := d.holder()
	if err != nil {
		return wire.Snapshot{}, err
	}
	if pid == 0 {
		return wire.Snapshot{}, d.noDaemon()
	}
	snap, err := wire.ReadSnapshot(d.Dir.Snapshot())
	if errors.Is(err, os.ErrNotExist) {
		return snap, fmt.Errorf("the daemon has not published a snapshot yet: %w", err)
	} else if err != nil {
		return snap, fmt.Errorf("the daemon's snapshot cannot be read: %w", err)
	}
	return snap, nil
}

// noDaemon words ErrNoDaemon for a person: a server that does not run at all is said
// so, as the fix differs.
func (d Daemon) noDaemon() error {
	if _, err := os.Stat(d.Server.SocketPath()); err != nil {
		return fmt.Errorf("%w: no tmux server runs at %s (start tmux first)", wire.ErrNoDaemon, d.Server.SocketPath())
	}
	return fmt.Errorf("%w (%s); start it with 'paneherd start'", wire.ErrNoDaemon, d.Server.SocketPath())
}

// Pane finds the pane a target names in the daemon's snapshot.
func (d Daemon) Pane(target string) (wire.Pane, error) {
	snap, err := d.Snapshot()
	if err != nil {
		return wire.Pane{}, err
	}
	return Resolve(snap.Panes, target)
}

// How long the daemon may take to answer, when the caller's ctx gives no deadline: most
// questions it answers from its database in milliseconds, a notification test within a
// few seconds (each backend given up on at notify.TestDeadline); an action takes as long
// as its checks and waits do.
const (
	askLimit = 10 * time.Second
	// sendLimit: deferring to a person typing (up to @paneherd-send-defer-max), then the
	// acknowledgement and its retries.
	sendLimit = 5 * time.Minute
	// answerLimit: two looks, the keys, the dialog going away.
	answerLimit = 30 * time.Second
	// workerLimit: a create's checks and git worktree, or a retire's interrupt, its wait
	// (@paneherd-retire-wait) and kill.
	workerLimit = 2 * time.Minute
	// notifyTestLimit: every backend at once, each given up on at notify.TestDeadline,
	// then the history's record.
	notifyTestLimit = notify.TestDeadline + 7*time.Second
)

// bounded gives ctx the limit when it has no deadline of its own.
func bounded(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, limit)
}

// opLimit is how long an operation that acts may take when the caller gives no
// deadline; the others get askLimit.
var opLimit = map[string]time.Duration{
	wire.OpSend:   sendLimit,
	wire.OpAnswer: answerLimit,
	wire.OpCreate: workerLimit,
	wire.OpRetire: workerLimit,
}

// call asks the daemon req, with body (nil: none) as its body, and decodes the answer
// as T. ctx bounds it (else the operation's limit) and ends it early (Ctrl-C).
func call[T any](ctx context.Context, d Daemon, req wire.Request, body any) (T, error) {
	var out T
	if err := d.Dir.Trusted(); err != nil {
		return out, err
	}
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return out, fmt.Errorf("%s: %w", req.Op, err)
		}
		req.Body = raw
	}
	limit, ok := opLimit[req.Op]
	if !ok {
		limit = askLimit
	}
	ctx, cancel := bounded(ctx, limit)
	defer cancel()
	err := query.Ask(ctx, d.Dir.Query(), req, &out)
	switch {
	case errors.Is(err, wire.ErrNoDaemon):
		return out, d.noDaemon()
	case errors.Is(err, context.DeadlineExceeded):
		return out, fmt.Errorf("the daemon did not answer in time (busy or hung?); its log: %s: %w", d.Dir.Log(), err)
	}
	return out, err
}

// Send asks the daemon to deliver (or queue) a prompt, with every check of delivery.
func (d Daemon) Send(ctx context.Context, ask wire.SendAsk) (wire.Result, error) {
	return call[wire.Result](ctx, d, wire.Request{Op: wire.OpSend}, ask)
}

// Answer asks the daemon to answer a pane's dialog.
func (d Daemon) Answer(ctx context.Context, req wire.AnswerRequest) (wire.Result, error) {
	return call[wire.Result](ctx, d, wire.Request{Op: wire.OpAnswer}, req)
}

// History is a pane's history ("": every pane's), the newest limit of each kind.
func (d Daemon) History(ctx context.Context, paneID string, limit int) (wire.History, error) {
	return call[wire.History](ctx, d, wire.Request{Op: wire.OpHistory, PaneID: paneID, Limit: limit}, nil)
}

// HistoryOf is the history of what target names ("": every pane), the newest limit of
// each kind: a live pane as Resolve finds it, else a pane id or a managed worker's name
// that only the history still knows (a closed pane, a retired worker). An error wraps
// ErrNoTarget when neither knows it.
func (d Daemon) HistoryOf(ctx context.Context, target string, limit int) (wire.History, error) {
	if target == "" {
		return d.History(ctx, "", limit)
	}
	p, err := d.Pane(target)
	if err == nil {
		return d.History(ctx, p.ID, limit)
	}
	if !errors.Is(err, wire.ErrNoTarget) {
		return wire.History{}, err
	}
	req, body := wire.Request{Op: wire.OpHistory, Limit: limit}, any(nil)
	if strings.HasPrefix(target, "%") {
		req.PaneID = target
	} else {
		body = wire.WorkerAsk{Name: target}
	}
	h, err := call[wire.History](ctx, d, req, body)
	if err != nil {
		return h, err
	}
	if h.Empty() {
		return h, fmt.Errorf("%w: %q: no pane or worker of that name, now or in the history: give a pane id (%%3), a worker name or session:window.pane", wire.ErrNoTarget, target)
	}
	return h, nil
}

// Metrics is the daemon's metrics in the Prometheus text exposition format.
func (d Daemon) Metrics(ctx context.Context) (string, error) {
	m, err := call[wire.Metrics](ctx, d, wire.Request{Op: wire.OpMetrics}, nil)
	return m.Text, err
}

// About is the running daemon as `paneherd doctor` reports it: pid, start, observer, its
// files and its database's schema.
func (d Daemon) About(ctx context.Context) (wire.About, error) {
	return call[wire.About](ctx, d, wire.Request{Op: wire.OpAbout}, nil)
}

// NotifyTest sends a test notification through every backend the way the daemon would:
// by the daemon when one runs (its environment is the one that matters), else from this
// process with the user's options. byDaemon says which.
func (d Daemon) NotifyTest(ctx context.Context) (r wire.NotifyTestResult, byDaemon bool, err error) {
	ctx, cancel := bounded(ctx, notifyTestLimit) // the daemon's test or this process's
	defer cancel()
	r, err = call[wire.NotifyTestResult](ctx, d, wire.Request{Op: wire.OpNotifyTest}, nil)
	if !errors.Is(err, wire.ErrNoDaemon) {
		return r, true, err
	}
	cfg := notify.Config{Backend: "auto"}
	if values, err := options.Load(ctx, d.Server); err == nil {
		cfg = values.Notify()
	}
	n := notify.New(notify.Desktop{Env: notify.TmuxEnv(d.Server), UID: os.Getuid()}, notify.Tmux{Server: d.Server}, notify.Config{})
	host, _ := os.Hostname()
	n.Env = notify.ExtraEnv{Server: d.Server, Host: host}
	n.SetConfig(cfg)
	return notify.Tested(n.Deliver(ctx, notify.TestNotification())), false, nil
}

// Resolve finds a pane by what a person calls it: a pane id (%3), a worker name as the
// status line shows it, or session:window.pane (window by index or name). An error
// wraps ErrNoTarget.
func Resolve(panes []wire.Pane, target string) (wire.Pane, error) {
	var found []wire.Pane
	for _, p := range panes {
		if matchesTarget(p, target) {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return wire.Pane{}, fmt.Errorf("%w: %q: give a pane id (%%3), a worker name or session:window.pane", wire.ErrNoTarget, target)
	}
	var ids []string
	for _, p := range found {
		ids = append(ids, p.ID)
	}
	return wire.Pane{}, fmt.Errorf("%w: %q names several panes (%s): give a pane id", wire.ErrNoTarget, target, strings.Join(ids, ", "))
}

func matchesTarget(p wire.Pane, target string) bool {
	if target == p.ID || target == p.Name {
		return true
	}
	session, rest, ok := strings.Cut(target, ":")
	if !ok || session != p.Session {
		return false
	}
	window, pane, hasPane := strings.Cut(rest, ".")
	if hasPane && pane != strconv.Itoa(p.PaneIndex) {
		return false
	}
	return window == strconv.Itoa(p.WindowIndex) || window == p.Window
}
