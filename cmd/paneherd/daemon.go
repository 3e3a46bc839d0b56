package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/logfile"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/watcher"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// daemonRun is the daemon: the watcher, and its links to tmux beyond watching (options,
// hook events, the pushed status line), to the notifier and to the CLI's questions.
type daemonRun struct {
	server   tmux.Server
	opts     watchOptions
	w        *watcher.Watcher
	log      *logfile.Log
	notifier *notify.Notifier
	engine   *deliver.Engine
	observer observer
	ready    chan string // panes that just became READY, for the prompt queue
	store    *store.Store
	pushing  atomic.Bool // status-mode is push
}

// daemon runs the watcher with the lock held. PANEHERD_CPUPROFILE=FILE writes a Go CPU
// profile of the whole run, for the benchmark harness and for whoever chases a hot path.
func daemon(ctx context.Context, e *env, dir paths.Dir, o watchOptions) error {
	if path := e.getenv("PANEHERD_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	log, err := logfile.Open(dir.Log(), o.level(o.values))
	if err != nil {
		return err
	}
	defer log.Close()
	st, err := openStore(e, dir, log)
	if err != nil {
		return err
	}
	defer st.Close()
	d := &daemonRun{server: e.server, opts: o, log: log, store: st}
	d.observer = d.newObserver(o.values)
	if c, ok := d.observer.(interface{ Close() }); ok {
		defer c.Close()
	}
	d.w = d.newWatcher(ctx, e, dir, st)
	d.notifier = newNotifier(d.server, st, log.Logger)
	d.engine = d.newEngine()
	d.ready = make(chan string, 1)
	d.apply(o.values)
	go d.notifier.Run(ctx)
	go d.deliverQueued(ctx, d.ready)
	if err := d.w.Restore(); err != nil {
		return err
	}
	stop, err := d.serve(ctx, dir)
	if err != nil {
		return err
	}
	defer stop()
	defer d.clearStatus()
	log.Info().Str("server", e.server.SocketPath()).Msg("watching")
	err = d.w.Run(ctx, d.observer)
	log.Info().Msg("stopped")
	return err
}

// observer is how the daemon looks at tmux: polling, or control mode.
type observer interface {
	watcher.Observer
	Wake()
	SetTick(time.Duration)
}

// newObserver starts the observer the options ask for; control mode falls back to
// polling when it cannot attach.
func (d *daemonRun) newObserver(values options.Values) observer {
	poll := watcher.NewPoller(d.server, d.opts.tick(values))
	if values.Get("observer") != "control" {
		return poll
	}
	c, err := watcher.StartControl(d.server)
	if err != nil {
		d.log.Warn().Err(err).Msg("control mode unavailable; polling instead")
		return poll
	}
	c.Log = d.log.Logger
	d.log.Info().Msg("observing through control mode")
	// Everything else the daemon asks tmux goes through the same client: no process.
	d.server.Via = c
	return c
}

func (d *daemonRun) newWatcher(ctx context.Context, e *env, dir paths.Dir, st *store.Store) *watcher.Watcher {
	set := packs.Load(packs.UserDir(e.getenv))
	warnProblems(e, set)
	for _, p := range set.Problems {
		d.log.Warn().Err(p).Msg("pack not loaded")
	}
	w := &watcher.Watcher{Packs: set, Store: st, Snapshot: dir.Snapshot(), PID: os.Getpid(), Log: d.log.Logger,
		Processes: paneProcesses}
	w.Push = func(line string) error { return d.push(ctx, line) }
	w.Transition = func(before store.Pane, tr store.Transition) {
		if n, ok := notify.FromTransition(before, tr); ok {
			d.notifier.Offer(n)
		}
		if tr.To == string(state.Ready) {
			select {
			case d.ready <- tr.PaneID:
			default: // a sweep is pending already
			}
		}
	}
	w.AgentExited = func(rec store.Pane, agent string, at time.Time) {
		d.notifier.Offer(notify.FromAgentExit(rec, agent, at))
	}
	return w
}

func openStore(e *env, dir paths.Dir, log *logfile.Log) (*store.Store, error) {
	st, err := store.Open(dir.DB(), store.Options{LockTimeout: time.Second})
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("watch: tmux server %s: %w", e.server.SocketPath(), err)
	}
	if err != nil {
		return nil, err
	}
	if msg := st.Recovered(); msg != "" {
		fmt.Fprintf(e.stderr, "paneherd: warning: %s\n", msg)
		log.Warn().Str("recovered", msg).Msg("database was unusable; started a fresh one")
	}
	return st, nil
}

// serve listens for hook events and questions; the returned func stops both.
func (d *daemonRun) serve(ctx context.Context, dir paths.Dir) (func(), error) {
	l, err := hooks.Listen(dir.Socket())
	if err != nil {
		return nil, err
	}
	go d.events(ctx, l.Events(ctx))
	stopQueries, err := query.Serve(ctx, dir.Query(), d.answer)
	if err != nil {
		l.Close()
		return nil, err
	}
	return func() { stopQueries(); l.Close() }, nil
}

// events wakes the poller on every hook event, and re-reads the options on reload.
func (d *daemonRun) events(ctx context.Context, events <-chan hooks.Event) {
	for ev := range events {
		d.log.Debug().Str("event", ev.Name).Strs("args", ev.Args).Msg("hook")
		if ev.Name == hooks.Reload {
			d.reload(ctx)
		}
		d.observer.Wake()
	}
}

func (d *daemonRun) reload(ctx context.Context) {
	values, err := options.Load(ctx, d.server)
	if err != nil {
		d.log.Warn().Err(err).Msg("reload options")
		return
	}
	d.apply(values)
	d.log.Info().Msg("options reloaded")
}

// apply takes the user's options, at start and on every reload: rendering, push or job
// mode, notifications, tick and log level.
func (d *daemonRun) apply(values options.Values) {
	for _, p := range values.Problems {
		d.log.Warn().Str("option", p).Msg("bad option value")
	}
	d.log.SetLevel(d.opts.level(values))
	d.observer.SetTick(d.opts.tick(values))
	d.notifier.SetConfig(values.Notify())
	d.engine.SetConfig(values.Delivery())
	d.pushing.Store(values.Push())
	if !values.Push() {
		d.clearStatus()
	}
	d.w.SetRender(values.StatusLine())
}

// push sets the status option; tmux redraws status lines that show it at once.
func (d *daemonRun) push(ctx context.Context, line string) error {
	if !d.pushing.Load() {
		return nil
	}
	_, err := d.server.Run(ctx, nil, "set-option", "-gq", plugin.StatusOption, tmux.LiteralArg(line))
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		d.log.Warn().Err(err).Msg("push status line")
	}
	return err
}

// clearStatus removes the pushed line so a stopped daemon leaves no stale badges.
func (d *daemonRun) clearStatus() {
	d.server.Run(context.Background(), nil, "set-option", "-gqu", plugin.StatusOption)
}

// paneProcesses lists a pane's processes for pack detection.
func paneProcesses(pid int) []packs.Process {
	procs, err := proc.Descendants(pid)
	if err != nil {
		return nil
	}
	out := make([]packs.Process, len(procs))
	for i, p := range procs {
		out[i] = packs.Process{Name: p.Name, Args: p.Args}
	}
	return out
}
