package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/state"
)

// Agent is the event name of an agent hook's datagram: `paneherd hook agent NAME EVENT`,
// run by Claude Code, Codex or Gemini CLI from the hooks `paneherd hooks install` wrote.
const Agent = "agent"

// Agents whose hooks paneherd reads.
const (
	Claude = "claude"
	Codex  = "codex"
	Gemini = "gemini"
)

// AgentEvent is what one agent hook tells the daemon: only what the daemon needs, so it
// fits one datagram whatever the agent sent (a PostToolUse payload holds the tool's whole
// output).
type AgentEvent struct {
	Agent string // claude, codex, gemini
	Event string // the agent's name for it: Notification, Stop, agent-turn-complete, ...
	Pane  string // $TMUX_PANE of the hook, "%3"
	// Kind is a notification's type (permission_prompt, idle_prompt, ToolPermission), or
	// CodexTitle for Codex's hidden title turn.
	Kind    string
	Summary string // a short line for the status table
	// Problem says why the hook could not be read ("": it could). The daemon logs it.
	Problem string
	// Transcript is the file the agent writes its conversation to, where its hook names
	// it (Claude Code's and Gemini CLI's transcript_path; Codex's session file, found from
	// its thread's id): how full its context is comes from there (internal/contextuse).
	Transcript string
	// Model is the model the hook names (Claude Code's SessionStart), which may say
	// more than the transcript does ("claude-opus-4-8[1m]").
	Model string
}

// CodexTitle is the Kind of a Codex turn that titles the conversation in a hidden thread.
const CodexTitle = "title-turn"

// AgentFile is the event name of the datagram that follows an agent's event when its
// hook named its conversation's file or model: a daemon older than it ignores it (an
// unknown name), while its agent event stays as that daemon reads it.
const AgentFile = "agent-file"

// Bounds of the datagram's fields: the agent event's short fields keep it within
// agentDatagram, the file's path within maxDatagram.
const (
	maxSummary = 200
	maxProblem = 400
	maxWord    = 64
	maxPath    = 2048
)

// agentDatagram bounds the agent event's datagram: what a daemon before AgentFile took.
const agentDatagram = 1024

// Datagram is the event as it travels to the daemon: 6 fields, as every daemon reads it.
func (a AgentEvent) Datagram() Event {
	return Event{Name: Agent, Args: []string{
		oneLine(a.Agent, maxWord), oneLine(a.Event, maxWord), oneLine(a.Pane, maxWord),
		oneLine(a.Kind, maxWord), oneLine(a.Summary, maxSummary), oneLine(a.Problem, maxProblem),
	}}
}

// FileDatagram is the event's file and model as they travel, sent before its Datagram;
// false when the hook named neither (or could not be read).
func (a AgentEvent) FileDatagram() (Event, bool) {
	path, model := exactPath(a.Transcript), oneLine(a.Model, maxWord)
	if a.Problem != "" || (path == "" && model == "") {
		return Event{}, false
	}
	return Event{Name: AgentFile, Args: []string{
		oneLine(a.Agent, maxWord), oneLine(a.Pane, maxWord), path, model,
	}}, true
}

// AgentEventOf reads an agent event back from its datagram: its first 6 fields (a later
// paneherd may add more).
func AgentEventOf(e Event) (AgentEvent, bool) {
	if e.Name != Agent || len(e.Args) < 6 {
		return AgentEvent{}, false
	}
	a := e.Args
	return AgentEvent{Agent: a[0], Event: a[1], Pane: a[2], Kind: a[3], Summary: a[4], Problem: a[5]}, true
}

// AgentFileOf reads a FileDatagram back: Agent, Pane, Transcript and Model are set.
func AgentFileOf(e Event) (AgentEvent, bool) {
	if e.Name != AgentFile || len(e.Args) < 4 {
		return AgentEvent{}, false
	}
	a := e.Args
	return AgentEvent{Agent: a[0], Pane: a[1], Transcript: a[2], Model: a[3]}, true
}

// exactPath is a path as it travels: whole or not at all, since a path cut or with its
// blanks changed names another file (one with a newline cannot travel on a line), and
// absolute (the daemon's working directory is not the agent's).
func exactPath(p string) string {
	if len(p) > maxPath || strings.ContainsAny(p, "\n\x00") || !utf8.ValidString(p) || !filepath.IsAbs(p) {
		return ""
	}
	return p
}

// oneLine keeps s on one line (the datagram separates fields with newlines) and within n
// bytes, cut on a character boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// payload is the part of any agent's hook JSON that paneherd reads.
type payload struct {
	NotificationType string          `json:"notification_type"`
	Message          string          `json:"message"`
	ToolName         string          `json:"tool_name"`
	Type             string          `json:"type"`           // Codex: agent-turn-complete
	InputMessages    []string        `json:"input-messages"` // Codex
	Details          json.RawMessage `json:"details"`
	TranscriptPath   string          `json:"transcript_path"` // Claude Code, Gemini CLI
	Model            string          `json:"model"`           // Claude Code's SessionStart
	Thread           string          `json:"thread-id"`       // Codex
}

// ReadAgentEvent reads one hook's payload. event is the name the hook's command line
// gives (Codex's notify program gets the type in the payload instead). A payload that is
// not JSON still makes an event, with the Problem said, so the daemon logs it.
func ReadAgentEvent(agent, event string, raw []byte) AgentEvent {
	a := AgentEvent{Agent: agent, Event: event}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		a.Problem = fmt.Sprintf("payload is not JSON (%v; %d bytes, starting %q)", err, len(raw), quoteStart(raw))
		return a
	}
	if agent == Codex && p.Type != "" {
		a.Event = p.Type
	}
	a.Kind = p.NotificationType
	if agent == Codex && codexTitleTurn(p.InputMessages) {
		a.Kind = CodexTitle
	}
	a.Summary = summary(a.Event, p)
	a.Transcript, a.Model = p.TranscriptPath, p.Model
	return a
}

// CodexThread is the id of the Codex conversation a notify payload is of ("": none),
// which names its session file (contextuse.CodexSessionFile).
func CodexThread(raw []byte) string {
	var p payload
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	return p.Thread
}

// quoteStart is a payload's first bytes for the log, secrets masked (secrets.Mask): a
// payload may hold anything the agent handed its hook. Masked before the cut, so a secret
// the cut ends inside still has the shape Mask knows, and over a bounded head, as a
// payload can be megabytes of a tool's output.
func quoteStart(raw []byte) string {
	return oneLine(secrets.Mask(string(raw[:min(len(raw), 1024)])), 40)
}

// codexTitleTurn: Codex 0.169 names each conversation with a turn of its own in a hidden
// thread, and fires agent-turn-complete for it too, often while the real turn still runs
// (seen while a permission dialog showed). Its one input message is the request for a
// title with the user's prompt under it.
func codexTitleTurn(msgs []string) bool {
	return len(msgs) == 1 && strings.Contains(msgs[0], "task title") && strings.Contains(msgs[0], "User prompt:")
}

// eventWords say an event for a person, when its payload has no message of its own.
var eventWords = map[string]string{
	"UserPromptSubmit": "prompt submitted", "BeforeAgent": "prompt submitted",
	"Stop": "turn finished", "AfterAgent": "turn finished", "agent-turn-complete": "turn finished",
	"SessionStart": "session started", "SessionEnd": "session ended",
}

func summary(event string, p payload) string {
	if w, ok := eventWords[event]; ok && p.Message == "" {
		return w
	}
	switch {
	case p.Message != "":
		return p.Message
	case p.ToolName != "" && (event == "PostToolUse" || event == "AfterTool"):
		return "ran " + p.ToolName
	case p.ToolName != "":
		return "running " + p.ToolName
	}
	return "hook: " + event
}

// Claim is what an agent event says of its pane's state.
type Claim struct {
	// State is the state the event moves the pane to; "" with Known: none, the screen
	// decides from now on (a session ended or began).
	State state.State
	// TurnEnded: the agent's turn is over (a READY claim): it shows once the screen
	// reads the idle prompt, which may still be drawing its last lines (tracker.Edge).
	TurnEnded bool
	// Known is false for events that say nothing about the state (an idle reminder, a
	// Codex title turn): the daemon only looks at the screen sooner.
	Known bool
}

// claims maps agent -> event -> claim; notifications are decided by their type.
var claims = map[string]map[string]Claim{
	Claude: {
		"UserPromptSubmit": {State: state.Busy, Known: true},
		"PreToolUse":       {State: state.Busy, Known: true},
		"PostToolUse":      {State: state.Busy, Known: true},
		"Stop":             {State: state.Ready, TurnEnded: true, Known: true},
		"SessionStart":     {Known: true},
		"SessionEnd":       {Known: true},
	},
	Codex: {
		"agent-turn-complete": {State: state.Ready, TurnEnded: true, Known: true},
	},
	Gemini: {
		"BeforeAgent":  {State: state.Busy, Known: true},
		"BeforeTool":   {State: state.Busy, Known: true},
		"AfterTool":    {State: state.Busy, Known: true},
		"AfterAgent":   {State: state.Ready, TurnEnded: true, Known: true},
		"SessionStart": {Known: true},
		"SessionEnd":   {Known: true},
	},
}

// permissionKinds are the notification types that mean a dialog waits for a person.
var permissionKinds = map[string]bool{
	"permission_prompt": true, // Claude Code
	"ToolPermission":    true, // Gemini CLI
}

// Claim says what the event means for the pane's state.
func (a AgentEvent) Claim() Claim {
	switch {
	case a.Problem != "" || a.Kind == CodexTitle:
		return Claim{}
	case a.Event == "Notification":
		if permissionKinds[a.Kind] {
			return Claim{State: state.NeedsConfirmation, Known: true}
		}
		return Claim{}
	}
	return claims[a.Agent][a.Event]
}

// AgentEvents are the events paneherd installs a hook for, per agent (Codex has one
// notify program, which gets every event).
var AgentEvents = map[string][]string{
	Claude: {"Notification", "Stop", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SessionStart", "SessionEnd"},
	Codex:  {"notify"},
	Gemini: {"SessionStart", "BeforeAgent", "BeforeTool", "Notification", "AfterTool", "AfterAgent", "SessionEnd"},
}
