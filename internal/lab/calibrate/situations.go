package main

import (
	"cmp"
	"time"
)

// situation is one state the bench plays, and how a CLI is brought into it: after a first
// answered prompt (so the screen holds a conversation, as a working agent's does), a
// prompt whose keyword tells the lab's fake model what to do, then a wait until the
// situation holds steadily.
type situation struct {
	name   string
	prompt func(a agent) string // nil for none
	reach  func(p *pane)
}

func say(text string) func(agent) string { return func(agent) string { return text } }

var situations = []situation{
	{name: "idle", reach: func(p *pane) { p.sleep(time.Second) }},
	// The model never answers: the CLI shows its thinking spinner until it gives up.
	{name: "thinking", prompt: say("hangforever please"), reach: func(p *pane) { p.sleep(3 * time.Second) }},
	// A long answer, a few words every 0.4 s for about 80 s.
	{name: "streaming", prompt: say("slowstream please"), reach: func(p *pane) { p.sleep(5 * time.Second) }},
	// A permission dialog for a shell command, left unanswered.
	{name: "dialog", prompt: say("runcmd please"), reach: func(p *pane) {
		if !p.shows(p.agent.dialog, waitLimit) {
			p.note("no dialog for runcmd")
		}
		p.sleep(2 * time.Second)
	}},
	// `sleep 40` through the shell tool, approved when the CLI asks (at once, when it
	// does: the fake model asks for the tool in its first answer). Codex runs it without
	// asking, and ends its turn a while later with the command left in the background: the
	// recording must be over by then.
	{name: "tool", prompt: func(a agent) string { return cmp.Or(a.tool, "longcmd please") }, reach: func(p *pane) {
		if p.shows(p.agent.dialog, 6*time.Second) {
			p.sleep(time.Second)
			p.keys(p.agent.approve)
		}
		p.sleep(4 * time.Second)
	}},
	// An HTTP 401 from the model: the CLI's error, at its prompt again.
	{name: "error", prompt: say("err401 please"), reach: func(p *pane) {
		if !p.shows(p.agent.failure, waitLimit) {
			p.note("no error for err401")
		}
		p.sleep(2 * time.Second)
	}},
}

func situationByName(name string) (situation, bool) {
	for _, s := range situations {
		if s.name == name {
			return s, true
		}
	}
	return situation{}, false
}
