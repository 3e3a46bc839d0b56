package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/paneherd/paneherd/hooks"
)

var cmdStart = command{
	name:    "start",
	summary: "start the daemon in the background unless one runs",
	usage:   "start",
	about:   "Starts the daemon (paneherd watch) in the background for the tmux server, unless one runs.",
	flags:   noFlags(runStart),
}

var cmdStop = command{
	name:    "stop",
	summary: "stop the daemon",
	usage:   "stop",
	about: `Stops the daemon. It leaves a mark, so the status bar does not start it again; paneherd
start, restart or loading the plugin again do.`,
	flags: noFlags(runStop),
}

var cmdRestart = command{
	name:    "restart",
	summary: "stop the daemon, then start it",
	usage:   "restart",
	about:   "Stops the daemon, then starts it (a new binary, a changed @paneherd-observer).",
	flags:   noFlags(runRestart),
}

var cmdHook = command{
	name:    "hook",
	summary: "(run by tmux hooks and agent hooks) tell the daemon something changed",
	usage:   "hook EVENT [ARGS...]\nhook agent NAME EVENT [JSON]",
	about: `Run by tmux hooks (installed by the plugin) and by agents' hooks (paneherd hooks install):
tells the daemon something changed, in one datagram, and prints nothing.`,
	flags: rawArgs(runHook),
}

func runStart(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("start takes no arguments")
	}
	pid, err := startDaemon(ctx, e)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "paneherd daemon running (pid %d) for %s\n", pid, e.server.SocketPath())
	return nil
}

func runStop(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("stop takes no arguments")
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	pid, err := d.Stop(ctx)
	if err != nil {
		return err
	}
	if pid == 0 {
		fmt.Fprintf(e.stdout, "no paneherd daemon was running for %s\n", e.server.SocketPath())
	} else {
		fmt.Fprintf(e.stdout, "stopped paneherd daemon (pid %d)\n", pid)
	}
	return nil
}

func runRestart(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("restart takes no arguments")
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	if _, err := d.Stop(ctx); err != nil {
		return err
	}
	return runStart(ctx, e, nil)
}

// startDaemon starts this binary's daemon for the server unless one runs.
func startDaemon(ctx context.Context, e *env) (int, error) {
	d, err := e.daemon()
	if err != nil {
		return 0, err
	}
	binary, err := selfPath()
	if err != nil {
		return 0, err
	}
	return d.Start(ctx, binary)
}

// runHook is what tmux hooks run: hand the event to the daemon and return at once; with
// no daemon listening, revive one that crashed (client-detached fires when a daemon's
// control-mode client dies with it). It is silent whatever happens: a hook's output
// would land in the user's pane.
func runHook(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("hook needs an event")
	}
	if args[0] == hooks.Agent {
		return runAgentHook(e, args[1:])
	}
	d, err := e.daemon()
	if err != nil {
		return nil
	}
	if err := d.Tell(hooks.Event{Name: args[0], Args: args[1:]}); errors.Is(err, hooks.ErrNoDaemon) {
		revive(ctx, d)
	}
	return nil
}
