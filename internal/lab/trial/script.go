package main

import (
	"path/filepath"
	"regexp"
	"sort"
)

// agent is what the script must know of one CLI: how to start, answer and interrupt it,
// and the text of the screens it provokes, read off what each really draws (the packs'
// fixtures of the lab). None of it comes from paneherd's packs.
type agent struct {
	name    string
	command string
	dialog  string // a line of any dialog it asks in (trust, run a command, write a file)
	failure string // a line of its error for err401 and err400
	approve string // the key that approves a permission dialog
	deny    string // the key that denies one
	trust   string // the key that accepts its folder-trust dialog
	escapes int    // Escapes that stop a turn (opencode asks for a second)
	// reset is a prompt that makes it answer again after an error (Claude Code answers
	// every later request with "Context limit reached" after a 400).
	reset string
	idle  []string // what animates while the agent is idle: cut out of lines when judging stillness
}

var agents = []agent{
	{name: "claude", command: "claude",
		dialog:  `Do you want to (proceed|create|make)|trust this folder`,
		failure: `API Error|Invalid API key|Context limit reached`,
		approve: "1", deny: "Escape", trust: "Enter", escapes: 1, reset: "/clear",
		// The footer's right end shows "● high · /effort" for a few seconds after a turn.
		idle: []string{`^  \? for shortcuts.*`}},
	{name: "codex", command: "codex --no-daemon",
		dialog:  `Would you like to run|Trust this folder`,
		failure: `unexpected status|40[01] (Unauthorized|Bad Request)|■ .*(40[01]|error)`,
		approve: "y", deny: "Escape", trust: "Enter", escapes: 1},
	{name: "gemini", command: "gemini",
		dialog:  `Do you trust the files|Allow execution of|Apply this change\?|Allow once`,
		failure: `✕ \[API Error`,
		approve: "1", deny: "Escape", trust: "Enter", escapes: 1,
		// With hooks installed, the row over the input box names the hooks that ran
		// ("Executing Hooks: paneherd, paneherd") for a few seconds after a turn, its spinner
		// gone: the turn is over and the box takes a prompt.
		idle: []string{`^\s+(?:Executing Hooks?: [\w, -]+?)?\s+\? for shortcuts$`}},
	{name: "opencode", command: "opencode",
		dialog:  `Permission required|Allow once +Allow always +Reject`,
		failure: `invalid x-api-key|[Bb]ad [Rr]equest|Error:|error\b`,
		approve: "Enter", deny: "Escape", trust: "Enter", escapes: 2,
		// An error's toast, a box in the top right corner over the conversation, stays a few
		// seconds after the turn ended (a 400 it compacted and answered) and goes by itself.
		// The idle footer (the directory, then the context's tokens and cost, then hints;
		// two lines in a narrow pane) has its count and cost filled in after the reply and
		// its prompt are drawn (docs/performance.md#live-trial): the turn is over and the box
		// takes a prompt.
		// The busy footer starts with the spinner, and stays.
		idle: []string{`\s*┃[^┃]*┃$`, `^\s*[~/]\S*\s{2,}.*ctrl\+p commands$`, `^\s*[~/]\S*.*ctrl\+p$`, `^\s*\S+\s{2,}commands$`}},
	{name: "qwen", command: "qwen",
		dialog:  `Allow execution of|Apply this change|Do you trust`,
		failure: `✕ \[API Error`,
		approve: "1", deny: "Escape", trust: "Enter", escapes: 1},
}

func agentByName(name string) (agent, bool) {
	for _, a := range agents {
		if a.name == name {
			return a, true
		}
	}
	return agent{}, false
}

func agentNames() []string {
	var names []string
	for _, a := range agents {
		names = append(names, a.name)
	}
	sort.Strings(names)
	return names
}

// script is the session every agent gets: start (and trust the folder when asked), two
// rounds of the situations, exit. Each round: a plain answer; a streamed answer
// interrupted; a command approved; a file write denied; thinking (a request the model
// never answers) interrupted; an error (err400, then err401: Claude Code fails every
// request after either, so it gets a reset after the first, and the 401 comes last). Thinking comes late in the round: opencode sends an
// unanswered prompt again with the next one, and the error keyword wins over it (Claude
// Code and Codex put the interrupted prompt back in the input, where the next is typed
// after it).
func script(s *session) {
	a := s.agent
	dialog := []mark{{State: "NEEDS_CONFIRMATION", Pattern: a.dialog}}
	s.prompt("launch", a.command, dialog, false)
	for i := 0; i < 3 && s.launched(); i++ {
		s.sleep(dwell)
		s.act("trust the folder", "submit", dialog, false, a.trust)
	}
	for i, failure := range []string{"err400", "err401"} {
		s.prompt("answer", "hello there", nil, false)
		s.settle()
		s.interrupted("stream", "slowstream please")
		s.permission("approve", "runcmd please", a.approve)
		s.permission("deny", "writefile "+filepath.Join(s.workdir, "hello.py")+" please", a.deny)
		s.interrupted("thinking", "hangforever please")
		s.prompt("error "+failure, failure+" please", []mark{{State: "ERROR", Pattern: a.failure}}, false)
		if s.appears(mark{State: "ERROR", Pattern: a.failure}) {
			s.sleep(dwell)
		}
		s.settle()
		if a.reset != "" && i == 0 {
			s.prompt("reset after the error", a.reset, nil, false)
			s.settle()
		}
	}
	s.act("exit", "submit", nil, false, "C-c", "C-c")
	s.settle()
}

// launched waits for the started CLI to settle and says whether it asks for trust: a
// dialog drawn since the last action (Gemini restarts below the one it answered).
func (s *session) launched() bool {
	s.settle()
	re := regexp.MustCompile(s.agent.dialog)
	last := s.rec.latest(1)
	return len(last) == 1 && count(re, last[0].Screen) > s.countAt(re, s.lastAction())
}

// interrupted submits a prompt that keeps the agent busy, and stops it after busyFor.
func (s *session) interrupted(name, text string) {
	s.prompt(name, text, nil, true)
	s.sleep(busyFor)
	keys := []string{"Escape"}
	if s.agent.escapes == 2 {
		keys = append(keys, "Escape")
	}
	s.act("interrupt "+name, "submit", nil, false, keys...)
	s.settle()
}

// permission submits a prompt that asks for a permission, and answers with key once the
// dialog has been on screen for dwell.
func (s *session) permission(name, text, key string) {
	dialog := []mark{{State: "NEEDS_CONFIRMATION", Pattern: s.agent.dialog}}
	s.prompt("dialog for "+name, text, dialog, false)
	if s.appears(dialog[0]) {
		s.sleep(dwell)
	}
	s.act(name, "submit", nil, false, key)
	s.settle()
}
