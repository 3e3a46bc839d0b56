package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/store"
)

// launch starts command for the worker: in its pane again when tmux kept the pane
// (respawn-pane: the same pane id, window and place), else in a new window of its
// session, made if gone. The window keeps a dead pane (remain-on-exit), so a crash
// leaves its last screen and exit status, and a restart keeps the pane. Every tmux step
// goes in one command list: tmux runs it before it reaps a command that dies at once.
// Under s.mu.
func (s *Supervisor) launch(ctx context.Context, w *store.Worker, command string) error {
	var cmds [][]string
	if w.PaneID != "" && s.paneExists(ctx, w.PaneID) {
		cmds = [][]string{
			{"respawn-pane", "-k", "-t", w.PaneID, "-c", w.Workspace, command},
			{"display-message", "-p", "-t", w.PaneID, "#{pane_id} #{pane_pid}"},
		}
	} else {
		open := []string{"new-window", "-d", "-t", "=" + w.Session + ":", "-n", w.Window, "-c", w.Workspace, "-P", "-F", "#{pane_id} #{pane_pid}", command}
		if !s.sessionExists(ctx, w.Session) {
			open = []string{"new-session", "-d", "-s", w.Session, "-n", w.Window, "-c", w.Workspace, "-P", "-F", "#{pane_id} #{pane_pid}", command}
		}
		target := "=" + w.Session + ":=" + w.Window
		cmds = [][]string{open, {"set-option", "-w", "-t", target, "remain-on-exit", "on"}}
		if s.Binary != "" {
			// Its death tells the daemon at once, plugin or not: without a hook the
			// daemon sees a dead pane only at its next list (5 s in control mode).
			died := hooks.Hook{Name: "pane-died", Args: []string{"#{hook_pane}"}}
			cmds = append(cmds, []string{"set-hook", "-w", "-t", target, fmt.Sprintf("pane-died[%d]", hooks.Index),
				died.Command(s.Binary, s.Server.SocketPath())})
		}
	}
	out, err := s.Server.Run(ctx, nil, tmux.Chain(cmds)...)
	if err != nil {
		return err
	}
	id, pid, ok := parseStarted(out)
	if !ok {
		return fmt.Errorf("tmux did not say which pane it started: %q", out)
	}
	w.PaneID, w.PID, w.Server = id, pid, ""
	return s.tag(ctx, w)
}

// tag names the pane for the status line and the watcher, and pins the pack if one
// was chosen: set on the pane, they follow it wherever it moves.
func (s *Supervisor) tag(ctx context.Context, w *store.Worker) error {
	cmds := [][]string{{"set-option", "-p", "-t", w.PaneID, "@paneherd-name", w.Name}}
	if w.Pack != "" {
		cmds = append(cmds, []string{"set-option", "-p", "-t", w.PaneID, "@paneherd-pack", w.Pack})
	}
	_, err := s.Server.Run(ctx, nil, tmux.Chain(cmds)...)
	return err
}

func parseStarted(out string) (string, int, bool) {
	f := strings.Fields(out)
	if len(f) != 2 || !strings.HasPrefix(f[0], "%") {
		return "", 0, false
	}
	pid, err := strconv.Atoi(f[1])
	return f[0], pid, err == nil
}

func (s *Supervisor) paneExists(ctx context.Context, id string) bool {
	out, err := s.Server.Run(ctx, nil, "list-panes", "-a", "-f", "#{==:#{pane_id},"+id+"}", "-F", "#{pane_id}")
	return err == nil && strings.TrimSpace(out) == id
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

// lastLines is the pane's screen's last n non-empty lines.
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
	return lines[max(0, len(lines)-n):]
}
