package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// agent is what the recorder must know of one CLI: its npm package (for the version), how
// to start it, and the text of the screens it waits for, read off what each really draws
// (the lab's trial knows the same screens: internal/lab/trial/script.go).
type agent struct {
	name    string
	pkg     string // its npm package in the lab's AGENTS_DIR
	command string
	ready   string // a line of its idle prompt, once it has started
	dialog  string // a line of any dialog it asks in (trust, run a command)
	failure string // a line of its error for err401
	approve string // the key that approves a permission dialog
	trust   string // the key that accepts its folder-trust dialog
	// tool is what makes it run a tool for long, when the fake model's longcmd does not.
	tool string
}

var agents = []agent{
	{name: "claude", pkg: "@anthropic-ai/claude-code", command: "claude", ready: `\? for shortcuts`,
		dialog:  `Do you want to (proceed|create|make)|trust this folder`,
		failure: `API Error|Invalid API key`, approve: "1", trust: "Enter"},
	{name: "codex", pkg: "@openai/codex", command: "codex --no-daemon", ready: `\? for shortcuts`,
		dialog:  `Would you like to run|Trust this folder`,
		failure: `unexpected status|401 Unauthorized|■ .*(401|error)`, approve: "y", trust: "Enter"},
	{name: "gemini", pkg: "@google/gemini-cli", command: "gemini", ready: `Type your message`,
		dialog:  `Do you trust the files|Allow execution of|Allow once`,
		failure: `✕ \[API Error`, approve: "1", trust: "Enter"},
	{name: "opencode", pkg: "opencode-ai", command: "opencode", ready: `ctrl\+p commands`,
		dialog:  `Permission required|Allow once +Allow always +Reject`,
		failure: `invalid x-api-key|Error:|error\b`, approve: "Enter", trust: "Enter"},
	{name: "qwen", pkg: "@qwen-code/qwen-code", command: "qwen", ready: `Type your message`,
		dialog:  `Allow execution of|Apply this change|Do you trust`,
		failure: `✕ \[API Error`, approve: "1", trust: "Enter",
		// It refuses longcmd's `sleep 40` in the foreground ("Run blocking commands in the
		// background"); its shell mode (!) runs it, drawn as the same running shell tool.
		tool: "!sleep 40"},
}

func agentByName(name string) (agent, error) {
	for _, a := range agents {
		if a.name == name {
			return a, nil
		}
	}
	return agent{}, fmt.Errorf("unknown agent %q (claude codex gemini opencode qwen)", name)
}

// version is the installed CLI's version, from its package.json under dir (AGENTS_DIR).
func (a agent) version(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", a.pkg, "package.json"))
	if err != nil {
		return "", fmt.Errorf("%s's version: %w", a.name, err)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(data, &p); err != nil || p.Version == "" {
		return "", fmt.Errorf("%s's version: no version in its package.json", a.name)
	}
	return p.Version, nil
}
