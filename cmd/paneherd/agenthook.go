package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/contextuse"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/logfile"
)

// maxPayload bounds what an agent hook reads of its payload: a PostToolUse payload holds
// the tool's whole output, and only a few small fields matter. A longer one is read to
// the end (the agent is writing it) and its event taken from the command line alone.
const maxPayload = 4 << 20

// runAgentHook is `paneherd hook agent NAME EVENT [JSON]`, run by an agent's own hooks
// (`paneherd hooks install`): read the payload (stdin; Codex gives it as the last
// argument), tell the daemon (its file and model, then the event: two datagrams), return. Whatever happens it prints nothing
// and succeeds: the agent waits for its hooks, and Gemini reads a hook's stdout as JSON.
// What went wrong goes to the daemon's log. It does not revive a daemon: that waits for
// the daemon to start, and the agent would wait with it.
func runAgentHook(e *env, args []string) error {
	if e.getenv("TMUX") == "" && e.getenv("TMUX_PANE") == "" {
		// The agent runs outside tmux: there is no pane to tell about, and telling the
		// default server's daemon would fill its log with a line per event.
		return nil
	}
	if len(args) < 2 {
		args = append(args, "", "")[:2]
	}
	a := readAgentHook(e, args)
	d, err := e.daemon()
	if err != nil {
		return nil
	}
	if file, ok := a.FileDatagram(); ok {
		d.Tell(file) // first: the event's Forget at SessionEnd comes after it
	}
	if err := d.Tell(a.Datagram()); err != nil && a.Problem != "" {
		logAgentProblem(d, a)
	}
	return nil
}

// readAgentHook reads the event a hook's command line and payload describe.
func readAgentHook(e *env, args []string) hooks.AgentEvent {
	agent, event := args[0], args[1]
	var raw []byte
	complete := true
	if len(args) > 2 {
		raw = []byte(args[len(args)-1])
	} else {
		raw, complete = readPayload(e.stdin)
	}
	if !complete {
		raw = []byte("{}")
	}
	a := hooks.ReadAgentEvent(agent, event, raw)
	a.Pane = e.getenv("TMUX_PANE")
	if agent == hooks.Codex && a.Problem == "" && a.Kind != hooks.CodexTitle {
		// Codex names its conversation, not its file: the session file is under its
		// home, which only the hook's environment tells.
		a.Transcript = contextuse.CodexSessionFile(contextuse.CodexHome(e.getenv), hooks.CodexThread(raw))
	}
	switch {
	case a.Problem != "":
	case hooks.AgentEvents[agent] == nil:
		a.Problem = fmt.Sprintf("unknown agent %q (paneherd reads claude, codex and gemini hooks): check the hook's command line in the agent's settings, or run 'paneherd hooks install AGENT' again", agent)
	case event == "":
		a.Problem = "no event on the hook's command line (usage: paneherd hook agent NAME EVENT): run 'paneherd hooks install " + agent + "' again"
	case a.Pane == "":
		a.Problem = "$TMUX_PANE is not set: the agent runs outside tmux, or something cleared its environment; paneherd reads its screen only (if it runs in tmux)"
	}
	return a
}

// readPayload reads a hook's stdin; complete is false when it was too long to keep. A
// terminal is not read at all (a person running the command by hand): nothing would end it.
func readPayload(r io.Reader) (raw []byte, complete bool) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return nil, true
		}
	}
	var b bytes.Buffer
	n, _ := io.Copy(&b, io.LimitReader(r, maxPayload+1))
	if n > maxPayload {
		io.Copy(io.Discard, r)
		return nil, false
	}
	return b.Bytes(), true
}

// logAgentProblem writes the problem into the daemon's log when no daemon took it. With
// no state directory no daemon ever ran for this server: there is no log to keep.
func logAgentProblem(d herd.Daemon, a hooks.AgentEvent) {
	if _, err := os.Stat(d.Dir.State); err != nil {
		return
	}
	l, err := logfile.Open(d.Dir.Log(), "warn")
	if err != nil {
		return
	}
	defer l.Close()
	l.Warn().Str("agent", a.Agent).Str("event", a.Event).Str("pane", a.Pane).
		Msg("agent hook not understood (no daemon ran to take it): " + a.Problem)
}
