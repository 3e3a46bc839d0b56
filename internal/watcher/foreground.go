package watcher

import (
	"strings"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/packs"
)

// RuleForeground is the rule a pane is BUSY by when its shell waits for a command that
// shows nothing (quietCommand).
const RuleForeground = "foreground-command"

// quietCommand reads a shell pane BUSY while a command it started runs in front, however
// quiet the command is: `sleep 60` typed at a prompt leaves the screen a draft typed at
// the prompt would. The screen's reading r stands unless all of these hold:
//
//  1. the pane is read by the shell pack (FallbackPack): an agent, or any program with a
//     pack of its own, is read by its pack from its own screen;
//  2. the pane's own process is a shell (a command the shell pack names), and the group
//     in front of its terminal is another one (fg.Moved: the shell has handed the
//     terminal to a command and waits for it), led by a process that is not a shell
//     (command): a nested shell at its prompt is not a command;
//  3. the pack reads READY or UNKNOWN: a NEEDS_CONFIRMATION (sudo's password prompt,
//     ssh's yes/no, both with a program in front), an ERROR or a BUSY of its own says
//     more;
//  4. the bottom line is the prompt with the command typed on it (the pack's input line
//     holds text), or the screen is blank (`clear; sleep 60`): nothing was printed
//     since the command was typed. A program that drew a screen of its own (less, a
//     REPL's prompt) is read by what it drew.
func quietCommand(pk *packs.Pack, fg proc.Foreground, command string, sc screen.Screen, r packs.Result) packs.Result {
	if pk == nil || pk.Name != FallbackPack || !fg.Moved() || !pk.HasCommand(fg.Name) || pk.HasCommand(command) {
		return r
	}
	if r.State != state.Ready && r.State != state.Unknown {
		return r
	}
	typed, _ := pk.InputText(sc)
	if typed == "" && !blank(sc) {
		return r
	}
	summary := "a command runs"
	if command != "" {
		summary = "running " + command
	}
	return packs.Result{State: state.Busy, Pack: r.Pack, Rule: RuleForeground, Summary: summary, Hash: r.Hash, Clock: r.Clock}
}

// blank reports whether a screen shows nothing.
func blank(sc screen.Screen) bool {
	for _, l := range sc.Lines {
		if strings.TrimSpace(l.Text) != "" {
			return false
		}
	}
	return true
}
