package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/logfile"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/watcher"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

const watchUsage = `usage: paneherd [-L NAME | -S PATH] watch [--tick 1s] [--log-level info]

Runs in the foreground until the tmux server exits (exit 0) or SIGINT/SIGTERM. One daemon
per tmux server; a second one exits at once with "already running". State, snapshot and
log live in $XDG_STATE_HOME/paneherd/<server>/. 'paneherd start' runs it in the background.

  --tick DURATION    how often every pane is looked at (default: @paneherd-tick, 1s; at least 50ms)
  --log-level LEVEL  debug, info, warn or error (default: PANEHERD_LOG_LEVEL, @paneherd-log-level, info)
`

// minTick keeps a typo like --tick 1ms from turning the daemon into a busy loop.
const minTick = 50 * time.Millisecond

type watchOptions struct {
	tick     time.Duration
	logLevel string
	values   options.Values
}

func runWatch(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	tick := fs.Duration("tick", 0, "")
	level := fs.String("log-level", "", "")
	rest, err := parseFlags(fs, args, watchUsage)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(watchUsage, "watch takes no arguments")
	}
	if *tick != 0 && *tick < minTick {
		return usagef(watchUsage, "--tick %s is too short (at least %s)", *tick, minTick)
	}
	values, err := options.Load(ctx, e.server)
	if err != nil {
		return fmt.Errorf("cannot reach tmux server %s: %w", e.server.SocketPath(), err)
	}
	o, err := resolveWatch(e, values, *tick, *level)
	if err != nil {
		return err
	}
	dir, err := e.stateDir()
	if err != nil {
		return err
	}
	if err := dir.Create(); err != nil {
		return err
	}
	lock, err := daemonlock.Acquire(dir.Lock())
	if err != nil {
		return fmt.Errorf("watch: tmux server %s: %w", e.server.SocketPath(), err)
	}
	defer lock.Release()
	// A snapshot left by an earlier daemon describes panes we have not looked at yet;
	// while ours is missing, status says so instead of showing stale states.
	os.Remove(dir.Snapshot())
	defer os.Remove(dir.Snapshot())
	return daemon(ctx, e, dir, o)
}

// resolveWatch settles tick and log level: a flag wins, then the environment (log level),
// then the tmux option, then its default.
func resolveWatch(e *env, values options.Values, tickFlag time.Duration, levelFlag string) (watchOptions, error) {
	o := watchOptions{tick: tickFlag, logLevel: levelFlag, values: values}
	if o.tick == 0 {
		t, err := time.ParseDuration(values.Get("tick"))
		if err != nil {
			return o, fmt.Errorf("@paneherd-tick %q is not a duration (e.g. 1s, 500ms)", values.Get("tick"))
		}
		o.tick = t
	}
	if o.tick < minTick {
		return o, fmt.Errorf("@paneherd-tick %s is too short (at least %s)", o.tick, minTick)
	}
	for _, l := range []string{e.getenv("PANEHERD_LOG_LEVEL"), values.Get("log-level")} {
		if o.logLevel == "" {
			o.logLevel = l
		}
	}
	if _, err := zerolog.ParseLevel(o.logLevel); err != nil {
		return o, usagef(watchUsage, "unknown log level %q", o.logLevel)
	}
	return o, nil
}

// daemon runs the watcher with the lock held.
func daemon(ctx context.Context, e *env, dir paths.Dir, o watchOptions) error {
	log, closeLog, err := logfile.Open(dir.Log(), o.logLevel)
	if err != nil {
		return err
	}
	defer closeLog()
	st, err := openStore(e, dir, log)
	if err != nil {
		return err
	}
	defer st.Close()
	set := packs.Load(packs.UserDir(e.getenv))
	warnProblems(e, set)
	for _, p := range set.Problems {
		log.Warn().Err(p).Msg("pack not loaded")
	}
	w := &watcher.Watcher{Packs: set, Store: st, Snapshot: dir.Snapshot(), PID: os.Getpid(), Log: log,
		Processes: paneProcesses}
	d := &daemonRun{server: e.server, w: w, log: log, store: st}
	w.Push = func(line string) { d.push(ctx, line) }
	d.notifier = newNotifier(e.server, st, log)
	w.Transition = func(before store.Pane, tr store.Transition) {
		if n, ok := notify.FromTransition(before, tr); ok {
			d.notifier.Offer(n)
		}
	}
	w.AgentExited = func(rec store.Pane, agent string, at time.Time) {
		d.notifier.Offer(notify.FromAgentExit(rec, agent, at))
	}
	d.apply(o.values)
	go d.notifier.Run(ctx)
	if err := w.Restore(); err != nil {
		return err
	}
	poller := watcher.NewPoller(e.server, o.tick)
	if err := d.listen(ctx, dir.Socket(), poller); err != nil {
		return err
	}
	defer d.listener.Close()
	stopQueries, err := query.Serve(ctx, dir.Query(), d.answer)
	if err != nil {
		return err
	}
	defer stopQueries()
	defer d.clearStatus()
	log.Info().Str("server", e.server.SocketPath()).Dur("tick", o.tick).Msg("watching")
	err = w.Run(ctx, poller)
	log.Info().Msg("stopped")
	return err
}

func openStore(e *env, dir paths.Dir, log zerolog.Logger) (*store.Store, error) {
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

// daemonRun is the daemon's link to tmux beyond watching: options, hook events, the
// pushed status line.
type daemonRun struct {
	server   tmux.Server
	w        *watcher.Watcher
	log      zerolog.Logger
	listener *hooks.Listener
	pushing  atomic.Bool // status-mode is push
	notifier *notify.Notifier
	store    *store.Store
}

// apply takes the user's options: how to render, and whether to push the line to tmux.
func (d *daemonRun) apply(values options.Values) {
	cfg, err := values.Notify()
	if err != nil {
		d.log.Warn().Err(err).Msg("notification options")
	}
	d.notifier.SetConfig(cfg)
	d.pushing.Store(values.Get("status-mode") == "push")
	if !d.pushing.Load() {
		d.clearStatus()
	}
	d.w.SetRender(values.StatusLine())
}

// push sets the status option; tmux redraws status lines that show it at once.
func (d *daemonRun) push(ctx context.Context, line string) {
	if !d.pushing.Load() {
		return
	}
	_, err := d.server.Run(ctx, nil, "set-option", "-gq", plugin.StatusOption, tmux.LiteralArg(line))
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		d.log.Warn().Err(err).Msg("push status line")
	}
}

// clearStatus removes the pushed line so a stopped daemon leaves no stale badges.
func (d *daemonRun) clearStatus() {
	d.server.Run(context.Background(), nil, "set-option", "-gqu", plugin.StatusOption)
}

// listen wakes the poller on every hook event, and re-reads the options on reload.
func (d *daemonRun) listen(ctx context.Context, socket string, poller *watcher.Poller) error {
	l, err := hooks.Listen(socket)
	if err != nil {
		return err
	}
	d.listener = l
	go func() {
		for ev := range l.Events(ctx) {
			d.log.Debug().Str("event", ev.Name).Strs("args", ev.Args).Msg("hook")
			if ev.Name == hooks.Reload {
				d.reload(ctx)
			}
			poller.Wake()
		}
	}()
	return nil
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
