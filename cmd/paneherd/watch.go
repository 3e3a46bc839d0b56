package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/daemon"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/packs"
)

var cmdWatch = command{
	name:    "watch",
	summary: "run the daemon: classify every pane of the tmux server until it exits",
	usage:   "watch [--tick 1s] [--log-level info]",
	about: `Runs in the foreground until the tmux server exits (exit 0) or SIGINT/SIGTERM. One daemon
per tmux server; a second one exits at once with "already running". 'paneherd start' runs
it in the background. The global -L NAME or -S PATH before "watch" picks the tmux server,
as for every command.`,
	link: "[inside.md](inside.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o watchOptions
		fs.StringVar(&o.tick, "tick", "", "look at every pane every `DURATION` (default: @paneherd-tick, 1s; at least 50ms)")
		fs.StringVar(&o.level, "log-level", "", "log `LEVEL`: debug, info, warn or error (default: PANEHERD_LOG_LEVEL, @paneherd-log-level, info)")
		return func(ctx context.Context, e *env, args []string) error { return runWatch(ctx, e, fs, &o, args) }
	},
}

type watchOptions struct {
	tick, level string
}

func runWatch(ctx context.Context, e *env, fs *flag.FlagSet, o *watchOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("watch takes no arguments")
	}
	level := cmp.Or(o.level, e.getenv("PANEHERD_LOG_LEVEL"))
	cfg := daemon.Config{Server: e.server, LogLevel: level, PackDir: packs.UserDir(e.getenv), Stderr: e.stderr,
		Version: selfVersion()}
	if cfg.Tick, err = parseTick(o.tick); err != nil {
		return err
	}
	if _, err := zerolog.ParseLevel(level); err != nil {
		return usagef("unknown log level %q", level)
	}
	if cfg.Values, err = options.Load(ctx, e.server); err != nil {
		return fmt.Errorf("cannot reach tmux server %s: %w", e.server.SocketPath(), err)
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	cfg.Dir = d.Dir
	if path := e.getenv("PANEHERD_CPUPROFILE"); path != "" {
		stop := cpuProfile(path)
		defer stop()
	}
	return daemon.Run(ctx, cfg)
}

// parseTick reads --tick; "" is the option's.
func parseTick(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, usagef("--tick %q is not a duration", s)
	}
	if d < daemon.MinTick {
		return 0, usagef("--tick %s is too short (at least %s)", d, daemon.MinTick)
	}
	return d, nil
}

// cpuProfile writes a Go CPU profile of the whole run to path (PANEHERD_CPUPROFILE), for
// the benchmark harness and for whoever chases a hot path.
func cpuProfile(path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	pprof.StartCPUProfile(f)
	return func() { pprof.StopCPUProfile(); f.Close() }
}
