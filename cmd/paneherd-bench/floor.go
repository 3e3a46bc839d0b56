package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// The floors: the cheapest watchers of a fleet through tmux that could still show a
// change within the latency target, measured in the same run as paneherd (issue 19
// asked whether ten times less CPU than the peer can be had at p95 <= 300 ms). Each does
// nothing with what tmux hands it but read it and drop it: no parsing, no reading of a
// screen, no state, no store. What they cost is tmux's work and the reading alone, so
// no watcher built the same way can cost less.
//
//   - floor-relay: one control client per session, as paneherd's control observer
//     attaches them, taking every pane's output as it comes; a streaming pane (which it
//     is told of, where a real watcher must find out) is paused for its client and
//     captured every 200 ms instead, through one command client. (Paused, not off: with
//     every client off, tmux stops reading the pane, and the program in it stops.)
//   - floor-poll: one command client capturing every pane every 250 ms (a change then
//     waits 125 ms on average, 240 ms at p95, before its capture: the target's budget).
//   - floor-oracle: floor-relay, but told by the players' own logs (inotify) when each
//     pane starts and stops being busy: while busy, a pane is paused for its client and
//     captured every 250 ms instead, so no spinner frame is relayed. A real
//     watcher has to find that out from the screens; this one knows for free.
const (
	floorRelay  = "floor-relay"
	floorPoll   = "floor-poll"
	floorOracle = "floor-oracle"
)

const (
	floorStreamEvery = 200 * time.Millisecond
	floorPollEvery   = 250 * time.Millisecond
)

// floorCommand runs the floor watcher kind against the world's server, as a child
// process of the bench binary, so that it is measured like the others: its process and
// the tmux clients it starts.
func (w *world) floorCommand(ctx context.Context, self, kind string) *exec.Cmd {
	args := []string{"floor", kind, w.server.Socket}
	for id, log := range w.logs {
		if slices.Contains(w.streams, id) {
			args = append(args, id)
		} else {
			args = append(args, id+"="+log)
		}
	}
	c := exec.CommandContext(ctx, self, args...)
	c.Env = w.env
	return c
}

// floor is the floor subcommand: floor KIND SOCKET PANE=PLAYER-LOG|STREAMING-PANE...; it
// runs until SIGTERM.
func floor(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("floor %s|%s|%s SOCKET PANE=PLAYER-LOG|STREAMING-PANE...", floorRelay, floorPoll, floorOracle)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	kind, socket := args[0], args[1]
	var streams []string
	logs := map[string]string{} // player log -> its pane
	for _, a := range args[2:] {
		if id, log, ok := strings.Cut(a, "="); ok {
			logs[log] = id
		} else {
			streams = append(streams, a)
		}
	}
	panes, err := floorPanes(ctx, socket)
	if err != nil {
		return err
	}
	switch kind {
	case floorRelay, floorOracle:
		clients, err := floorRelayRun(ctx, socket, panes, streams)
		if err != nil {
			return err
		}
		if kind == floorOracle {
			go floorOracleRun(ctx, socket, panes, clients, logs)
		}
		if len(streams) == 0 {
			<-ctx.Done()
			return nil
		}
		return floorCaptures(ctx, socket, panes[0].session, streams, floorStreamEvery)
	case floorPoll:
		var all []string
		for _, p := range panes {
			all = append(all, p.id)
		}
		return floorCaptures(ctx, socket, panes[0].session, all, floorPollEvery)
	}
	return fmt.Errorf("floor: unknown kind %q", kind)
}

type floorPane struct{ session, id string }

func floorPanes(ctx context.Context, socket string) ([]floorPane, error) {
	out, err := exec.CommandContext(ctx, "tmux", "-S", socket, "list-panes", "-a", "-F", "#{session_name} #{pane_id}").Output()
	if err != nil {
		return nil, fmt.Errorf("list-panes: %w", err)
	}
	var panes []floorPane
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			panes = append(panes, floorPane{f[0], f[1]})
		}
	}
	if len(panes) == 0 {
		return nil, fmt.Errorf("no panes")
	}
	return panes, nil
}

// floorRelayRun attaches an output client to each session and pauses the streams; it
// returns the clients by session.
func floorRelayRun(ctx context.Context, socket string, panes []floorPane, streams []string) (map[string]io.Writer, error) {
	paused := map[string][]string{} // session -> its streaming panes, as refresh-client -A wants them
	var order []string
	for _, p := range panes {
		if _, ok := paused[p.session]; !ok {
			order = append(order, p.session)
			paused[p.session] = nil
		}
		for _, s := range streams {
			if s == p.id {
				paused[p.session] = append(paused[p.session], p.id+":pause")
			}
		}
	}
	clients := map[string]io.Writer{}
	for _, s := range order {
		c, err := floorClient(ctx, socket, s, "ignore-size,pause-after=2")
		if err != nil {
			return nil, err
		}
		if len(paused[s]) > 0 {
			fmt.Fprintf(c, "refresh-client -A '%s'\n", strings.Join(paused[s], ","))
		}
		clients[s] = c
	}
	return clients, nil
}

// floorOracleRun follows the players' logs: a pane that turns busy is paused and
// captured every floorPollEvery; one that turns anything else is continued. Only this goroutine writes to the clients after the start.
func floorOracleRun(ctx context.Context, socket string, panes []floorPane, clients map[string]io.Writer, logs map[string]string) error {
	sessionOf := map[string]string{}
	for _, p := range panes {
		sessionOf[p.id] = p.session
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	dirs := map[string]bool{}
	for log := range logs {
		dirs[filepath.Dir(log)] = true
	}
	for dir := range dirs {
		if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_MODIFY); err != nil {
			return err
		}
	}
	var mu sync.Mutex
	busy := map[string]bool{}
	go func() { // capture the busy panes every floorPollEvery
		c, err := floorClient(ctx, socket, panes[0].session, "ignore-size,no-output")
		if err != nil {
			return
		}
		tick := time.NewTicker(floorPollEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				var batch strings.Builder
				mu.Lock()
				for id := range busy {
					fmt.Fprintf(&batch, "capture-pane -p -t %s\n", id)
				}
				mu.Unlock()
				io.WriteString(c, batch.String())
			}
		}
	}()
	offsets := map[string]int64{}
	follow := func(id, log string) {
		st := floorLastState(log, offsets)
		if st == "" {
			return
		}
		mu.Lock()
		was := busy[id]
		if st == "BUSY" {
			busy[id] = true
		} else {
			delete(busy, id)
		}
		mu.Unlock()
		if was != (st == "BUSY") {
			fmt.Fprintf(clients[sessionOf[id]], "refresh-client -A '%s:%s'\n", id, map[bool]string{true: "pause", false: "continue"}[st == "BUSY"])
		}
	}
	for log, id := range logs { // where each player is now
		follow(id, log)
	}
	buf := make([]byte, 64<<10)
	for ctx.Err() == nil {
		n, err := syscall.Read(fd, buf)
		if err != nil {
			return err
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			for dir := range dirs {
				log := filepath.Join(dir, name)
				id, ok := logs[log]
				if !ok {
					continue
				}
				follow(id, log)
			}
		}
	}
	return nil
}

// floorLastState is the last state a player's log says, read from where the last read
// ended; "": nothing new.
func floorLastState(log string, offsets map[string]int64) string {
	f, err := os.Open(log)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.NewSectionReader(f, offsets[log], 1<<20))
	offsets[log] += int64(len(b))
	lines := strings.Fields(string(b))
	if len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1]
}

// floorCaptures captures the panes every so often through one command client.
func floorCaptures(ctx context.Context, socket, session string, panes []string, every time.Duration) error {
	c, err := floorClient(ctx, socket, session, "ignore-size,no-output")
	if err != nil {
		return err
	}
	var batch strings.Builder
	for _, p := range panes {
		fmt.Fprintf(&batch, "capture-pane -p -t %s\n", p)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if _, err := io.WriteString(c, batch.String()); err != nil {
				return err
			}
		}
	}
}

// floorClient starts a control client on the session with the flags; what it prints is
// read and dropped. It ends with ctx.
func floorClient(ctx context.Context, socket, session, flags string) (io.Writer, error) {
	c := exec.CommandContext(ctx, "tmux", "-S", socket, "-C", "attach", "-t", session, "-f", flags)
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	go func() {
		io.Copy(io.Discard, bufio.NewReaderSize(out, 64<<10))
		c.Wait()
	}()
	return in, nil
}
