package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/wire"
)

var cmdFollow = command{
	name:    "follow",
	summary: "stream this server's panes as JSON lines: a snapshot, then each change (read by another machine's daemon over ssh)",
	usage:   "follow --json [--heartbeat 5s]",
	about: `Streams this tmux server's panes, one JSON object a line, for another machine's daemon
to show (@paneherd-hosts runs it there over ssh): the first line is the whole snapshot
with the protocol's version and this paneherd's, then a line per change as the daemon
publishes it, and a heartbeat line while nothing changes. Starts the daemon if the tmux
server has none. Ends when whoever reads it goes (at the next line) or on SIGHUP,
SIGTERM or Ctrl-C.`,
	link: "[fleet.md](fleet.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o followOptions
		fs.BoolVar(&o.json, "json", false, "the only form there is (its lines: docs/fleet.md)")
		fs.DurationVar(&o.heartbeat, "heartbeat", herd.FollowHeartbeat, "a line at least every `D` while nothing changes (default 5s)")
		return func(ctx context.Context, e *env, args []string) error { return runFollow(ctx, e, fs, &o, args) }
	},
}

type followOptions struct {
	json      bool
	heartbeat time.Duration
}

func runFollow(ctx context.Context, e *env, fs *flag.FlagSet, o *followOptions, args []string) error {
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if !o.json {
		return usagef("follow writes JSON lines only: give --json")
	}
	if o.heartbeat <= 0 {
		return usagef("--heartbeat must be more than 0")
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	binary, err := os.Executable()
	if err != nil {
		return err
	}
	// A reader gone (the ssh connection dropped) is a write that fails with EPIPE, the
	// end of the stream, rather than a SIGPIPE that kills paneherd unannounced.
	signal.Ignore(syscall.SIGPIPE)
	enc := json.NewEncoder(e.stdout)
	err = d.Follow(ctx, binary, selfVersion(), o.heartbeat, func(l wire.FollowLine) error {
		if err := enc.Encode(l); err != nil {
			return fmt.Errorf("%w: %v", errReaderGone, err)
		}
		return nil
	})
	if errors.Is(err, errReaderGone) {
		return nil // that is how a stream ends
	}
	return err
}

// errReaderGone: a line could not be written, the reader has gone.
var errReaderGone = errors.New("follow: the reader went")
