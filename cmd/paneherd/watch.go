package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/logfile"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/watcher"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

const watchUsage = `usage: paneherd [-L NAME | -S PATH] watch [--tick 1s] [--log-level info]

Runs in the foreground until the tmux server exits (exit 0) or SIGINT/SIGTERM. One daemon
per tmux server; a second one exits at once with "already running". State, snapshot and
log live in $XDG_STATE_HOME/paneherd/<server>/.

  --tick DURATION    how often every pane is looked at (default 1s, at least 50ms)
  --log-level LEVEL  debug, info, warn or error (default info; env PANEHERD_LOG_LEVEL)
`

// minTick keeps a typo like --tick 1ms from turning the daemon into a busy loop.
const minTick = 50 * time.Millisecond

type watchOptions struct {
	tick     time.Duration
	logLevel string
}

func runWatch(ctx context.Context, e *env, args []string) error {
	o, err := parseWatch(e, args)
	if err != nil {
		return err
	}
	if _, err := e.server.ListPanes(ctx); err != nil {
		return fmt.Errorf("cannot reach tmux server %s: %w", e.server.SocketPath(), err)
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

func parseWatch(e *env, args []string) (watchOptions, error) {
	o := watchOptions{logLevel: e.getenv("PANEHERD_LOG_LEVEL")}
	if o.logLevel == "" {
		o.logLevel = "info"
	}
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.DurationVar(&o.tick, "tick", time.Second, "")
	fs.StringVar(&o.logLevel, "log-level", o.logLevel, "")
	rest, err := parseFlags(fs, args, watchUsage)
	if err != nil {
		return o, err
	}
	if len(rest) > 0 {
		return o, usagef(watchUsage, "watch takes no arguments")
	}
	if o.tick < minTick {
		return o, usagef(watchUsage, "--tick %s is too short (at least %s)", o.tick, minTick)
	}
	if _, err := zerolog.ParseLevel(o.logLevel); err != nil || o.logLevel == "" {
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
	st, err := store.Open(dir.DB(), store.Options{LockTimeout: time.Second})
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("watch: tmux server %s: %w", e.server.SocketPath(), err)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	if msg := st.Recovered(); msg != "" {
		fmt.Fprintf(e.stderr, "paneherd: warning: %s\n", msg)
		log.Warn().Str("recovered", msg).Msg("database was unusable; started a fresh one")
	}
	set := packs.Load(packs.UserDir(e.getenv))
	for _, p := range set.Problems {
		fmt.Fprintf(e.stderr, "paneherd: warning: pack not loaded: %v\n", p)
		log.Warn().Err(p).Msg("pack not loaded")
	}
	w := &watcher.Watcher{
		Packs: set, Store: st, Snapshot: dir.Snapshot(), PID: os.Getpid(), Log: log,
		Render: statusline.Options{}, Processes: paneProcesses,
	}
	if err := w.Restore(); err != nil {
		return err
	}
	log.Info().Str("server", e.server.SocketPath()).Dur("tick", o.tick).Msg("watching")
	err = w.Run(ctx, watcher.NewPoller(e.server, o.tick))
	log.Info().Msg("stopped")
	return err
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
