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

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/wire"
)

const followUsage = `usage: paneherd follow --json [--heartbeat 5s]

Streams this tmux server's panes, one JSON object a line, for another machine's daemon
to show (@paneherd-hosts runs it there over ssh): the first line is the whole snapshot
with the protocol's version and this paneherd's, then a line per change as the daemon
publishes it, and a heartbeat line while nothing changes. Starts the daemon if the tmux
server has none. Ends when whoever reads it goes (at the next line) or on SIGHUP,
SIGTERM or Ctrl-C.

  --json          the only form there is (lines: docs/fleet.md)
  --heartbeat D   a line at least this often while nothing changes (default 5s)
`

func runFollow(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	heartbeat := fs.Duration("heartbeat", herd.FollowHeartbeat, "")
	rest, err := parseFlags(fs, args, followUsage)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(followUsage, "unexpected argument %q", rest[0])
	}
	if !*asJSON {
		return usagef(followUsage, "follow writes JSON lines only: give --json")
	}
	if *heartbeat <= 0 {
		return usagef(followUsage, "--heartbeat must be more than 0")
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
	err = d.Follow(ctx, binary, selfVersion(), *heartbeat, func(l wire.FollowLine) error {
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
