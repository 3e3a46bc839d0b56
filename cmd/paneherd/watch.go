package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/options"
)

const watchUsage = `usage: paneherd [-L NAME | -S PATH] watch [--tick 1s] [--log-level info]

Runs in the foreground until the tmux server exits (exit 0) or SIGINT/SIGTERM. One daemon
per tmux server; a second one exits at once with "already running". 'paneherd start' runs
it in the background.

  --tick DURATION    how often every pane is looked at (default: @paneherd-tick, 1s; at least 50ms)
  --log-level LEVEL  debug, info, warn or error (default: PANEHERD_LOG_LEVEL, @paneherd-log-level, info)
`

// minTick keeps a typo like --tick 1ms from turning the daemon into a busy loop.
const minTick = 50 * time.Millisecond

// watchOptions are the daemon's settings; a flag given on the command line wins over
// the tmux option for the whole run.
type watchOptions struct {
	tickFlag, levelFlag string
	values              options.Values
}

func runWatch(ctx context.Context, e *env, args []string) error {
	var o watchOptions
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.StringVar(&o.tickFlag, "tick", "", "")
	fs.StringVar(&o.levelFlag, "log-level", e.getenv("PANEHERD_LOG_LEVEL"), "")
	rest, err := parseFlags(fs, args, watchUsage)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(watchUsage, "watch takes no arguments")
	}
	if err := o.checkFlags(); err != nil {
		return err
	}
	if o.values, err = options.Load(ctx, e.server); err != nil {
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

func (o watchOptions) checkFlags() error {
	if o.tickFlag != "" {
		d, err := time.ParseDuration(o.tickFlag)
		if err != nil {
			return usagef(watchUsage, "--tick %q is not a duration", o.tickFlag)
		}
		if d < minTick {
			return usagef(watchUsage, "--tick %s is too short (at least %s)", d, minTick)
		}
	}
	if _, err := zerolog.ParseLevel(o.levelFlag); err != nil {
		return usagef(watchUsage, "unknown log level %q", o.levelFlag)
	}
	return nil
}

// tick is the flag's tick, else the option's, never below minTick.
func (o watchOptions) tick(values options.Values) time.Duration {
	d := values.Duration("tick")
	if o.tickFlag != "" {
		d, _ = time.ParseDuration(o.tickFlag)
	}
	return max(d, minTick)
}

// level is the flag's (or environment's) log level, else the option's.
func (o watchOptions) level(values options.Values) string {
	if o.levelFlag != "" {
		return o.levelFlag
	}
	return values.Get("log-level")
}
