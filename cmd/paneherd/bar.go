package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/paneherd/paneherd/internal/herd"
)

var cmdBar = command{
	name:    "bar",
	summary: "(run by the status bar) revive a daemon that crashed; say whether one runs",
	usage:   "bar [--badges]",
	about: `Run by the status bar, where the plugin puts it. Starts the daemon again when it died
without being stopped (at most once every 10 s; after 'paneherd stop' it stays off),
then prints 1 when a daemon runs and 0 when none does. It never sets a tmux option: tmux
runs it inside a redraw.`,
	link: "[plugin.md](plugin.md#when-the-daemon-is-gone)",
	flags: func(fs *flag.FlagSet) runFunc {
		badges := fs.Bool("badges", false, "print what 'status --short' prints instead of 1 or 0")
		return func(ctx context.Context, e *env, args []string) error { return runBar(ctx, e, fs, badges, args) }
	},
}

func runBar(ctx context.Context, e *env, fs *flag.FlagSet, badges *bool, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("bar takes no arguments")
	}
	d, err := e.daemon()
	if err == nil {
		revive(ctx, d)
	}
	if *badges {
		return printShort(e)
	}
	alive := 0
	if err == nil && d.PID() != 0 {
		alive = 1
	}
	_, err = fmt.Fprintln(e.stdout, alive)
	return err
}

// revive starts the daemon again if it died without being stopped on purpose. The bar
// and the hooks call it, and keep quiet about how it went: their output lands in the
// status line or nowhere; a daemon that fails to start says why in its stderr file.
func revive(ctx context.Context, d herd.Daemon) {
	if d.PID() != 0 {
		return
	}
	if binary, err := selfPath(); err == nil {
		d.Revive(ctx, binary)
	}
}
