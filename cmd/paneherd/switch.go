package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

var cmdSwitch = command{
	name:    "switch",
	summary: "take the current tmux client to a worker",
	usage:   "switch NAME [--client NAME | --attach]",
	about: `Takes the current tmux client (or --client) to the worker: its session, window and
pane. NAME is a managed worker's name, a worker name as the status line shows it, a
pane id (%3) or session:window.pane.

HOST:NAME, a worker on a host of @paneherd-hosts, opens a new window here running
'ssh -t HOST paneherd switch NAME --attach': a tmux client of the host's server, on that
pane (the window already showing it, if one does, is taken instead). The window closes
when you detach (prefix d); it stays, with what ssh said, if ssh failed.

--attach attaches this terminal to the worker's tmux server, on its pane (tmux attach),
or to the host's, through ssh, for HOST:NAME.`,
	flags: func(fs *flag.FlagSet) runFunc {
		var o switchOptions
		fs.StringVar(&o.client, "client", "", "take the tmux client `NAME` there")
		fs.BoolVar(&o.attach, "attach", false, "attach this terminal to the worker's tmux server instead")
		return func(ctx context.Context, e *env, args []string) error { return runSwitch(ctx, e, fs, &o, args) }
	},
}

type switchOptions struct {
	client string
	attach bool
}

func runSwitch(ctx context.Context, e *env, fs *flag.FlagSet, o *switchOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	target, err := oneName(rest, "switch")
	if err != nil {
		return err
	}
	if o.attach && o.client != "" {
		return usagef("--attach attaches this terminal: it takes no --client")
	}
	h, where, err := e.where(ctx, target)
	if err != nil {
		return err
	}
	if h != nil && o.attach {
		return execve(attachCommand(h, where))
	}
	if h != nil {
		return showRemote(ctx, e, o.client, h, where)
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	paneID, err := workerPane(d, target)
	if err != nil {
		return err
	}
	if o.attach {
		return execve(append([]string{"tmux"}, e.server.Args("attach-session", "-t", paneID)...))
	}
	client := o.client
	if client == "" && e.getenv("TMUX") == "" {
		if client, err = personsClient(ctx, e, ""); err != nil {
			return fmt.Errorf("not inside tmux and %w: attach to the server first", err)
		}
	}
	_, err = e.server.Run(ctx, nil, clientArgs(client, "switch-client", "-t", paneID)...)
	return err
}

// workerPane is the pane of a managed worker by name, else of any pane the target names.
func workerPane(d herd.Daemon, target string) (string, error) {
	if w, err := d.Worker(target); err == nil {
		return w.PaneID, nil
	} else if !errors.Is(err, wire.ErrNoTarget) {
		return "", err
	}
	p, err := d.Pane(target)
	return p.ID, err
}

// execve replaces paneherd with the program of argv (looked up in PATH): a terminal's
// client (tmux attach, ssh -t) owns the terminal from then on.
func execve(argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// remoteMark is the pane option that says which pane of the fleet a window here shows
// (HOST:TARGET): switch takes the client to it instead of opening another, and jump
// knows where the client is.
const remoteMark = "@paneherd-remote"

// attachCommand is the command line that attaches a terminal to target's pane on h:
// switch --attach, run there through ssh -t.
func attachCommand(h *herd.Host, target string) []string {
	return h.TerminalCommand([]string{"switch", "--attach", "--", target})
}

// showRemote takes client (none: the one this runs in, else a person's) to a window
// showing where, a pane of h, through attachCommand: the window already showing it, or
// a new one. remain-on-exit failed keeps a window whose ssh failed, with what it said;
// set in the same tmux command as the window, it is there before ssh can end.
func showRemote(ctx context.Context, e *env, client string, h *herd.Host, where string) error {
	target := h.Label + ":" + where
	if client == "" && e.getenv("TMUX") == "" {
		var err error
		if client, err = personsClient(ctx, e, ""); err != nil {
			return fmt.Errorf("not inside tmux and %w: attach to the server first, or use --attach", err)
		}
	}
	if pane := markedPane(ctx, e, target); pane != "" {
		_, err := e.server.Run(ctx, nil, clientArgs(client, "switch-client", "-t", pane)...)
		return err
	}
	// The name is drawn in the bar: no tmux style or format of the target's there.
	window := []string{"new-window", "-n", tmux.LiteralArg(strings.ReplaceAll(statusline.Clean(target), "#", "_"))}
	if client != "" {
		session, err := e.server.Run(ctx, nil, "display-message", "-c", client, "-p", "#{session_id}")
		if err != nil {
			return err
		}
		window = append(window, "-t", strings.TrimSpace(session)+":")
	}
	window = append(window, "--")
	for _, a := range attachCommand(h, where) {
		window = append(window, tmux.LiteralArg(a))
	}
	_, err := e.server.Run(ctx, nil, append(window, ";", "set-option", "-p", "remain-on-exit", "failed",
		";", "set-option", "-p", remoteMark, tmux.LiteralArg(target))...)
	return err
}

// markedPane is the live pane here that shows target (remoteMark), if any.
func markedPane(ctx context.Context, e *env, target string) string {
	out, _ := e.server.Run(ctx, nil, "list-panes", "-a", "-F", "#{pane_id}\x1f#{pane_dead}\x1f#{"+remoteMark+"}")
	for _, line := range strings.Split(out, "\n") {
		if f := strings.SplitN(line, "\x1f", 3); len(f) == 3 && f[1] == "0" && f[2] == target {
			return f[0]
		}
	}
	return ""
}
