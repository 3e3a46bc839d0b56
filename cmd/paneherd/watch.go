package main

import (
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

const watchUsage = `usage: paneherd [-L NAME | -S PATH] watch [--tick 1s] [--log-level info]

Runs in the foreground until the tmux server exits (exit 0) or SIGINT/SIGTERM. One daemon
per tmux server; a second one exits at once with "already running". 'paneherd start' runs
it in the background.

  --tick DURATION    how often every pane is looked at (default: @paneherd-tick, 1s; at least 50ms)
  --log-level LEVEL  debug, info, warn or error (default: PANEHERD_LOG_LEVEL, @paneherd-log-level, info)
`

func runWatch(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	tick := fs.String("tick", "", "")
	level := fs.String("log-level", e.getenv("PANEHERD_LOG_LEVEL"), "")
	rest, err := parseFlags(fs, args, watchUsage)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(watchUsage, "watch takes no arguments")
	}
	cfg := daemon.Config{Server: e.server, LogLevel: *level, PackDir: packs.UserDir(e.getenv), Stderr: e.stderr,
		Version: selfVersion()}
	if cfg.Tick, err = parseTick(*tick); err != nil {
		return err
	}
	if _, err := zerolog.ParseLevel(*level); err != nil {
		return usagef(watchUsage, "unknown log level %q", *level)
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
		return 0, usagef(watchUsage, "--tick %q is not a duration", s)
	}
	if d < daemon.MinTick {
		return 0, usagef(watchUsage, "--tick %s is too short (at least %s)", d, daemon.MinTick)
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
