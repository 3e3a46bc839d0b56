package supervisor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

// launch starts command for the worker: in a new pane in place of its own when tmux
// kept that pane (replacement), else in a new window of its session, made if gone. The
// window keeps a dead pane (remain-on-exit), so a crash leaves its last screen and exit
// status until the restart. The tmux steps of each go in one command list: tmux runs it
// before it reaps a command that dies at once. A window or pane opened for a launch that
// then failed is closed again: nothing runs unmanaged. The kept pane is replaced only
// when it is the worker's own on the live server (owns): a new server's pane of the same
// id is someone else's. Under s.mu.
func (s *Supervisor) launch(ctx context.Context, w *wire.Worker, command string) error {
	kept := false
	if w.PaneID != "" {
		if err := s.learnServer(ctx); err != nil {
			return err
		}
	}
	if s.owns(ctx, w) {
		var err error
		if kept, err = s.paneExists(ctx, w.PaneID); err != nil {
			return err
		}
	}
	old := w.PaneID
	var out string
	var err error
	if kept {
		out, err = s.Server.Run(ctx, nil, tmux.Chain(s.replacement(ctx, w, command))...)
		if _, _, _, started := parseStarted(out); err != nil && !started {
			// No room to split it (docs/tmux-facts.md): a window of its own, and the
			// old pane closed, rather than no restart.
			s.Log.Warn().Err(err).Str("worker", w.Name).Msg("restart in a new window: its pane could not be split")
			out, err = s.Server.Run(ctx, nil, tmux.Chain(append(s.openWindow(ctx, w, command), []string{"kill-pane", "-t", old}))...)
		}
	} else {
		out, err = s.Server.Run(ctx, nil, tmux.Chain(s.openWindow(ctx, w, command))...)
	}
	id, pid, server, started := parseStarted(out)
	if err == nil && !started {
		err = fmt.Errorf("tmux did not say which pane it started: %q", out)
	}
	if err == nil {
		w.PaneID, w.PID, w.Server, w.Started = id, pid, server, s.now()
		err = s.tag(ctx, w)
	}
	if err != nil && started {
		s.Server.Run(context.WithoutCancel(ctx), nil, "kill-pane", "-t", id)
		return err
	}
	if err == nil && kept && s.Replaced != nil {
		s.Replaced(old, id)
	}
	return err
}

// replacement is the command list that starts command in a pane split from the worker's
// kept one, before it, then closes the kept one: the new pane takes its place (a closed
// pane's room goes to the one before it) on the same window's options and hooks, and
// the focus when the old one had it. Never respawn-pane: under an attached control client
// (the daemon's own, or iTerm2's) it loses the new process's first output and can crash
// the server (docs/tmux-facts.md).
func (s *Supervisor) replacement(ctx context.Context, w *wire.Worker, command string) [][]string {
	// tmux expands -c, -n and -s as formats (tmux.Unexpand): a directory named '#(cmd)'
	// would run cmd, and 'a##b' would start the worker in 'a#b'.
	split := []string{"split-window", "-b", "-t", w.PaneID, "-c", tmux.Unexpand(w.Workspace), "-P", "-F", startedFormat, command}
	if !s.paneActive(ctx, w.PaneID) {
		split = slices.Insert(split, 1, "-d")
	}
	return [][]string{split, {"kill-pane", "-t", w.PaneID}}
}

// paneActive asks tmux whether the pane is its window's active one.
func (s *Supervisor) paneActive(ctx context.Context, id string) bool {
	out, err := s.Server.Run(ctx, nil, "display-message", "-p", "-t", id, "#{pane_active}")
	return err == nil && strings.TrimSpace(out) == "1"
}

// startedFormat is what tmux prints of a pane it started: its id, its process, and the
// server's identity, so the record says on which server the id is the worker's.
const startedFormat = "#{pane_id} #{pane_pid} " + tmux.ServerFormat

// openWindow is the command list that opens the worker's window: a new window in its
// session, or the session itself; it keeps its dead pane, and its death wakes the daemon.
func (s *Supervisor) openWindow(ctx context.Context, w *wire.Worker, command string) [][]string {
	// -a after {end}: the new window is the session's last, and {end} names it in the
	// rest of the list (new-window -d leaves the current window as it was, and =S:=W could
	// be ambiguous next to a window of the same name a person made).
	last := "=" + w.Session + ":{end}"
	name, dir := tmux.Unexpand(w.Window), tmux.Unexpand(w.Workspace) // formats, as in launch
	open := []string{"new-window", "-a", "-d", "-t", last, "-n", name, "-c", dir, "-P", "-F", startedFormat, command}
	if !s.sessionExists(ctx, w.Session) {
		open = []string{"new-session", "-d", "-s", tmux.Unexpand(w.Session), "-n", name, "-c", dir, "-P", "-F", startedFormat, command}
	}
	cmds := [][]string{open, {"set-option", "-w", "-t", last, "remain-on-exit", "on"}}
	if s.Binary != "" {
		// Its death tells the daemon at once, plugin or not: without a hook the
		// daemon sees a dead pane only at its next list (5 s in control mode).
		died := hooks.Hook{Name: "pane-died", Args: []string{"#{hook_pane}"}}
		cmds = append(cmds, []string{"set-hook", "-w", "-t", last, fmt.Sprintf("pane-died[%d]", hooks.Index),
			died.Command(s.Binary, s.Server.SocketPath())})
	}
	return cmds
}

// tag names the pane for the status line and the watcher, and pins the pack if one
// was chosen: set on the pane, they follow it wherever it moves.
func (s *Supervisor) tag(ctx context.Context, w *wire.Worker) error {
	cmds := [][]string{{"set-option", "-p", "-t", w.PaneID, "@paneherd-name", w.Name}}
	if w.Pack != "" {
		cmds = append(cmds, []string{"set-option", "-p", "-t", w.PaneID, "@paneherd-pack", w.Pack})
	}
	_, err := s.Server.Run(ctx, nil, tmux.Chain(cmds)...)
	return err
}

// parseStarted reads startedFormat.
func parseStarted(out string) (id string, pid int, server string, ok bool) {
	f := strings.Fields(out)
	if len(f) != 3 || !strings.HasPrefix(f[0], "%") {
		return "", 0, "", false
	}
	pid, err := strconv.Atoi(f[1])
	return f[0], pid, f[2], err == nil
}

// learnServer asks tmux for the identity of the server that runs now (tmux.ServerFormat), for
// owns: before the supervisor trusts a pane id with a key, a replacement or a kill.
func (s *Supervisor) learnServer(ctx context.Context) error {
	out, err := s.Server.Run(ctx, nil, "display-message", "-p", tmux.ServerFormat)
	if err != nil {
		s.live = ""
		return fmt.Errorf("ask tmux which server runs: %w", err)
	}
	s.live = strings.TrimSpace(out)
	return nil
}

// paneProcess asks tmux for the pane's process and whether it still runs (a dead pane
// keeps its last one's pid).
func (s *Supervisor) paneProcess(ctx context.Context, paneID string) (pid int, alive bool, err error) {
	out, err := s.Server.Run(ctx, nil, "list-panes", "-a", "-f", "#{==:#{pane_id},"+paneID+"}", "-F", "#{pane_dead} #{pane_pid}")
	if err != nil {
		return 0, false, err
	}
	dead, p, _ := strings.Cut(strings.TrimSpace(out), " ")
	if pid, err = strconv.Atoi(p); err != nil {
		return 0, false, fmt.Errorf("ask tmux for the process of %s: %q: %w", paneID, out, err)
	}
	return pid, dead == "0", nil
}

// paneExists asks tmux whether the pane is there (dead or alive); an error when tmux
// did not answer. A server with no sessions left, or none at all (closing the last pane
// ends it unless exit-empty is off), has no pane.
func (s *Supervisor) paneExists(ctx context.Context, id string) (bool, error) {
	out, err := s.Server.Run(ctx, nil, "list-panes", "-a", "-f", "#{==:#{pane_id},"+id+"}", "-F", "#{pane_id}")
	if errors.Is(err, tmux.ErrNoSessions) || errors.Is(err, tmux.ErrNoServer) {
		return false, nil
	}
	return err == nil && strings.TrimSpace(out) == id, err
}

func (s *Supervisor) sessionExists(ctx context.Context, name string) bool {
	_, err := s.Server.Run(ctx, nil, "has-session", "-t", "="+name)
	return err == nil
}

// errAlive: the pane's process runs.
var errAlive = errors.New("the pane is alive")

// deadStatus asks tmux how a dead pane's process ended: its exit status, or -1 when tmux
// does not know it (killed by a signal, or not reaped yet).
func (s *Supervisor) deadStatus(ctx context.Context, id string) (int, error) {
	out, err := s.Server.Run(ctx, nil, "display-message", "-p", "-t", id, "#{pane_dead}:#{pane_dead_status}")
	if err != nil {
		return -1, err
	}
	dead, status, _ := strings.Cut(strings.TrimSpace(out), ":")
	if dead != "1" {
		return -1, errAlive
	}
	n, err := strconv.Atoi(status)
	if err != nil {
		return -1, nil
	}
	return n, nil
}

// lastLines is the pane's screen's last n non-empty lines, masked: they are stored,
// logged and notified.
func (s *Supervisor) lastLines(ctx context.Context, id string, n int) []string {
	screens, err := s.Server.Capture(ctx, []string{id}, false)
	if err != nil {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(screens[id], "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, " "))
		}
	}
	return maskLines(lines[max(0, len(lines)-n):])
}
