package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/plugin"
)

var cmdPlugin = command{
	name:    "plugin",
	summary: "(run by paneherd.tmux) apply the plugin: status bar, hooks, keys, daemon",
	usage:   "plugin apply [--no-daemon]",
	about: `Run by paneherd.tmux (TPM) in the tmux server it configures: replaces #{paneherd_status}
in status-left/right, installs the hooks and key bindings, adds DBUS_SESSION_BUS_ADDRESS
and WAYLAND_DISPLAY to update-environment, then starts the daemon unless one runs
(restarting one that runs an older binary) and tells it to re-read the @paneherd-...
options. Prints what the user should know (keys left alone, option values not
understood) on one line.`,
	link: "[plugin.md](plugin.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		noDaemon := fs.Bool("no-daemon", false, "only the tmux side; paneherd.tmux runs this first, in the foreground")
		return func(ctx context.Context, e *env, args []string) error { return runPlugin(ctx, e, fs, noDaemon, args) }
	},
}

func runPlugin(ctx context.Context, e *env, fs *flag.FlagSet, noDaemon *bool, args []string) error {
	if len(args) == 0 || args[0] != "apply" {
		return usagef("plugin takes one subcommand: apply")
	}
	if rest, err := parseFlags(fs, args[1:]); err != nil || len(rest) > 0 {
		return usagef("plugin apply takes only --no-daemon")
	}
	values, err := options.Load(ctx, e.server)
	if err != nil {
		return fmt.Errorf("cannot reach tmux server %s: %w", e.server.SocketPath(), err)
	}
	binary, err := selfPath()
	if err != nil {
		return err
	}
	warnings, err := plugin.Plugin{Server: e.server, Binary: binary, Values: values}.Apply(ctx)
	if err != nil {
		return err
	}
	if !*noDaemon {
		if err := ensureDaemon(ctx, e, binary); err != nil {
			return err
		}
	}
	if len(warnings) > 0 {
		fmt.Fprintln(e.stdout, strings.Join(warnings, "; "))
	}
	return nil
}

// ensureDaemon starts the daemon, or restarts it when it runs another binary than this
// one (the plugin was updated and rebuilt), then has it re-read the options.
func ensureDaemon(ctx context.Context, e *env, binary string) error {
	d, err := e.daemon()
	if err != nil {
		return err
	}
	if pid := d.PID(); pid > 0 && !runs(pid, binary) {
		if _, err := d.Stop(ctx); err != nil {
			return err
		}
	}
	if _, err := d.Start(ctx, binary); err != nil {
		return err
	}
	d.Tell(hooks.Event{Name: hooks.Reload})
	return nil
}

// runs reports whether process pid runs binary. A binary replaced by a rebuild shows as
// "path (deleted)" in /proc, which is not binary.
func runs(pid int, binary string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err != nil || exe == binary // unknown: leave it running
}

// selfPath is this binary's absolute path, as hooks and key bindings must call it.
func selfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the paneherd binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return exe, nil
}
