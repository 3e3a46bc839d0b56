package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/plugin"
)

const pluginUsage = `usage: paneherd plugin apply

Run by paneherd.tmux (TPM) in the tmux server it configures: replaces #{paneherd_status} in
status-left/right, installs the hooks and key bindings, adds DBUS_SESSION_BUS_ADDRESS and
WAYLAND_DISPLAY to update-environment, starts the daemon unless one runs and tells a running
one to re-read the @paneherd-... options.
`

func runPlugin(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 || args[0] != "apply" {
		return usagef(pluginUsage, "plugin takes one subcommand: apply")
	}
	values, err := options.Load(ctx, e.server)
	if err != nil {
		return fmt.Errorf("cannot reach tmux server %s: %w", e.server.SocketPath(), err)
	}
	binary, err := selfPath()
	if err != nil {
		return err
	}
	p := plugin.Plugin{Server: e.server, Binary: binary, Values: values}
	if err := p.Apply(ctx); err != nil {
		return err
	}
	if _, err := startDaemon(ctx, e); err != nil {
		return err
	}
	dir, err := e.stateDir()
	if err != nil {
		return err
	}
	// A daemon that was already running reads the options again; a new one just did.
	hooks.Send(dir.Socket(), hooks.Event{Name: hooks.Reload})
	return nil
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
