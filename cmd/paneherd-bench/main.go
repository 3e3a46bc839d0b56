// Command paneherd-bench measures paneherd the way it runs: a private tmux server with
// many panes playing real captured screens of the agents on a schedule (some streaming
// output), the daemon under test, and its snapshot read every 10 ms. It reports how soon
// each state shows after the screen changed (p50/p95), the CPU the daemon costs (with the
// tmux clients it starts, and the tmux server's extra work over the same panes without a
// daemon), its memory, and how fast `status --short` answers; for the control-mode
// observer (and with -poll the polling one, the fallback), each the median of several
// runs, beside the floors (-floor) and the peer (-peer). With
// PANEHERD_FLEET_BENCH=1, also a daemon following 10 hosts over ssh (fleet.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

func main() {
	// The bench's own subcommands, run in the panes (play) and as a watcher (floor).
	subcommands := map[string]func([]string) error{"play": play, "floor": floor}
	if len(os.Args) > 1 && subcommands[os.Args[1]] != nil {
		if err := subcommands[os.Args[1]](os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "paneherd-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("paneherd-bench", flag.ContinueOnError)
	binary := fs.String("paneherd", "bin/paneherd", "the paneherd binary under test")
	runs := fs.Int("runs", 3, "runs per observer and scenario; the median is reported")
	window := fs.Duration("window", 15*time.Second, "how long each run measures")
	quick := fs.Bool("quick", false, "one short run of each, to try the harness")
	profile := fs.String("profile", "", "write the daemon's CPU profiles to FILE.poll and FILE.control")
	only := fs.Int("scenario", -1, "run only scenario N (0: 50 panes, 1: 50 idle, 2: 200 panes, 3: 50 panes without state changes, 4: realistic, 50 panes changing once a minute, 5: issue 19's side-by-side run)")
	observer := fs.String("observer", "", "measure only this observer (poll, control, or a floor: floor-relay, floor-poll, floor-oracle)")
	pollToo := fs.Bool("poll", false, "also measure paneherd's polling observer (@paneherd-observer poll, the fallback)")
	redraw := fs.String("redraw", "agents", "how the players draw: agents (replay the real CLIs' recorded output: docs/performance.md), screen (the demo's screens, a busy one cleared and drawn whole every 400 ms) or lines (the same, rewriting only the lines that changed)")
	peer := fs.String("peer", "", "also measure luqmaan/tmux-ai-status, built from this source (a git URL, e.g. https://github.com/luqmaan/tmux-ai-status, or a local clone)")
	floors := fs.Bool("floor", false, "also measure the floors: the cheapest watchers through tmux that could show a change in time (floor.go)")
	write := fs.String("write", "", "write the figures into this page's bench block (make bench: docs/performance.md), replacing the last ones")
	fleetOnly := fs.Bool("fleet-only", false, "measure only the fleet (fleet.go: 10 hosts over ssh to a loopback sshd), which PANEHERD_FLEET_BENCH=1 adds to the rest")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pollToo {
		observers = append([]string{"poll"}, observers...)
	}
	if *observer != "" {
		observers = []string{*observer}
	}
	if *quick {
		*runs, *window = 1, 6*time.Second
	}
	bin, err := filepath.Abs(*binary)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if !slices.Contains([]string{"agents", "screen", "lines"}, *redraw) {
		return fmt.Errorf("-redraw is agents, screen or lines, not %q", *redraw)
	}
	h := harness{paneherd: bin, self: self, runs: *runs, window: *window, profile: *profile, quick: *quick, redraw: *redraw,
		doc: newBenchDoc(ctx, bin, *redraw)}
	if *write != "" { // before the runs, not after half an hour of them
		if *quick || *only >= 0 || *observer != "" {
			return fmt.Errorf("-write replaces every figure of the page's block: not with -quick, -scenario or -observer")
		}
		if err := benchBlock(*write).Present(); err != nil {
			return fmt.Errorf("-write: %w", err)
		}
	}
	if *peer != "" {
		bin, cleanup, err := buildPeer(ctx, *peer)
		if err != nil {
			return err
		}
		defer cleanup()
		h.peer = bin
		observers = append(observers, peerName)
	}
	if *floors {
		observers = append(observers, floorKinds...)
	}
	if *fleetOnly {
		return h.fleet(ctx)
	}
	for i, sc := range scenarios {
		if *only >= 0 && i != *only {
			continue
		}
		if err := h.scenario(ctx, sc); err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
	}
	if err := h.statusSpeed(ctx); err != nil {
		return err
	}
	if *write != "" {
		if err := h.doc.write(*write); err != nil {
			return err
		}
		fmt.Printf("\n== figures written into %s\n", *write)
	}
	if os.Getenv("PANEHERD_FLEET_BENCH") == "1" { // it needs sshd (openssh-server)
		return h.fleet(ctx)
	}
	return nil
}
