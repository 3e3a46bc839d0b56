package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

var cmdMenu = command{
	name:    "menu",
	summary: "show a tmux menu of workers; choosing one jumps to it",
	usage:   "menu [--send] [--client NAME]",
	about: `Shows a tmux menu of every worker with its state; choosing one jumps to it. Bound to
prefix + @paneherd-key-menu (default a). Without --client, on the client a person used
last; with none attached it fails at once.`,
	link: "[keys](../README.md#keys)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o menuOptions
		fs.BoolVar(&o.send, "send", false, "choosing one asks for a prompt and sends it there instead "+
			"(prefix + @paneherd-key-send-to, default W)")
		fs.StringVar(&o.client, "client", "", clientHelp)
		return func(ctx context.Context, e *env, args []string) error { return runMenu(ctx, e, fs, &o, args) }
	},
}

var cmdJump = command{
	name:    "jump",
	summary: "jump to the next pane needing attention",
	usage:   "jump [--client NAME]",
	about: `Jumps to the next pane needing attention: NEEDS_CONFIRMATION first (longest waiting
first), then ERROR, then STALLED, then agents that newly finished (READY in the last 10
minutes). Pressed again, it goes on to the next one. Bound to prefix + @paneherd-key-next
(default A).`,
	link: "[keys](../README.md#keys)",
	flags: func(fs *flag.FlagSet) runFunc {
		client := fs.String("client", "", clientHelp)
		return func(ctx context.Context, e *env, args []string) error { return runJump(ctx, e, fs, client, args) }
	},
}

// clientHelp is --client's help where a key binding names the client to act on.
const clientHelp = "act on the tmux client `NAME` (key bindings); default: the one a person used last"

// menuLabelWidth bounds a menu line and menuItems the lines: tmux does not open a menu
// wider or taller than the client at all.
const (
	menuLabelWidth = 70
	menuItems      = 20
)

type menuOptions struct {
	send   bool
	client string
}

func runMenu(ctx context.Context, e *env, fs *flag.FlagSet, o *menuOptions, args []string) error {
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	e.forKeyBinding(o.client)
	client, err := personsClient(ctx, e, o.client)
	if err != nil {
		return err
	}
	binary, err := selfPath()
	if err != nil {
		return err
	}
	pl := plugin.Plugin{Server: e.server, Binary: binary}
	action := goTo(pl, client)
	if o.send {
		action = sendPromptAction(pl)
	}
	return showMenu(ctx, e, client, action)
}

// goTo takes client to the chosen pane: this server's at once, a host's through
// paneherd switch HOST:TARGET (a window showing it).
func goTo(pl plugin.Plugin, client string) func(wire.Pane) string {
	return func(p wire.Pane) string {
		if p.Host != "" {
			return tmuxCommand(pl.SwitchTo(client, herd.TargetOf(p)))
		}
		return switchCommand(client, p.ID)
	}
}

// sendPromptAction asks for a prompt for the chosen pane and sends it there.
func sendPromptAction(pl plugin.Plugin) func(wire.Pane) string {
	return func(p wire.Pane) string {
		// command-prompt expands its prompt as a format and then draws it.
		return tmuxCommand(pl.SendPrompt(herd.TargetOf(p), statusline.EscapeFormat(shownName(p))))
	}
}

// shownName is a pane's name as the bar shows it: HOST/NAME for a host's.
func shownName(p wire.Pane) string {
	if p.Host == "" {
		return p.Name
	}
	return p.Host + "/" + p.Name
}

// showMenu shows the workers in a menu; choosing one runs action's command for it.
func showMenu(ctx context.Context, e *env, client string, action func(wire.Pane) string) error {
	snap, err := readLiveSnapshot(e)
	if err != nil {
		return tellClient(ctx, e, client, err.Error())
	}
	panes := append(snap.Panes, snap.Remote...)
	if len(panes) == 0 {
		return tellClient(ctx, e, client, "no panes watched")
	}
	_, err = e.server.Run(ctx, nil, menuArgs(client, panes, action)...)
	return err
}

// tmuxCommand joins a command and its arguments into one string for tmux's parser.
func tmuxCommand(args []string) string {
	out := args[0]
	for _, a := range args[1:] {
		out += " " + tmux.Quote(a)
	}
	return out
}

// menuArgs builds display-menu: one item per pane, keys 1-9 then a-z, choosing runs
// action's command for the pane. tmux expands a label as a format and then draws it, so
// pane text is escaped for both; it expands an item's command when it builds the menu, so
// the command is protected from that, to run as it would from a key binding.
func menuArgs(client string, panes []wire.Pane, action func(wire.Pane) string) []string {
	args := []string{"display-menu", "-T", "#[align=centre]paneherd", "-x", "C", "-y", "C"}
	if client != "" {
		args = append(args, "-c", client)
	}
	sorted := statusline.Sorted(panes)
	for i, p := range sorted {
		if i == menuItems {
			// A label starting with '-' is a disabled line: a note, not a choice.
			args = append(args, fmt.Sprintf("-%d more: prefix %s jumps to the next needing you", len(sorted)-i, "A"), "", "")
			break
		}
		// The leading space keeps a name starting with '-' from disabling its item.
		label := fmt.Sprintf(" %-20s %-18s %s", shownName(p), p.State, p.Summary)
		label = statusline.EscapeFormat(statusline.Clip(label, menuLabelWidth))
		command := tmux.Unexpand(action(p))
		args = append(args, tmux.LiteralArg(label), menuKey(i), tmux.LiteralArg(command))
	}
	return args
}

// menuKey is item i's key: digits, then letters, never j, k or q, which move in and
// close a tmux menu.
func menuKey(i int) string {
	const keys = "123456789abcdefghilmnoprstuvwxyz"
	if i < len(keys) {
		return string(keys[i])
	}
	return ""
}

// switchCommand makes the client show the pane: switch-client to a pane target selects
// its session, window and the pane itself.
func switchCommand(client, paneID string) string {
	if client == "" {
		return "switch-client -t " + paneID
	}
	return "switch-client -c " + quoteArg(client) + " -t " + paneID
}

func runJump(ctx context.Context, e *env, fs *flag.FlagSet, named *string, args []string) error {
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	client := *named
	e.forKeyBinding(client)
	client, err := personsClient(ctx, e, client)
	if err != nil {
		return err
	}
	snap, err := readLiveSnapshot(e)
	if err != nil {
		return tellClient(ctx, e, client, err.Error())
	}
	next := herd.NextAttention(append(snap.Panes, snap.Remote...), currentTarget(ctx, e, client), time.Now())
	if next == nil {
		return tellClient(ctx, e, client, "nobody needs you")
	}
	if next.Host != "" {
		return switchTo(ctx, e, client, herd.TargetOf(*next))
	}
	_, err = e.server.Run(ctx, nil, clientArgs(client, "switch-client", "-t", next.ID)...)
	return err
}

// currentTarget is the pane client shows, as herd.TargetOf names it: a host's, when its
// window shows one (remoteMark).
func currentTarget(ctx context.Context, e *env, client string) string {
	id, shown := currentPane(ctx, e, client)
	if shown != "" {
		return shown
	}
	return id
}

// switchTo takes client to target, HOST:TARGET, as switch does.
func switchTo(ctx context.Context, e *env, client, target string) error {
	h, where, err := e.where(ctx, target)
	if err == nil && h == nil {
		err = fmt.Errorf("%s is not a pane of a host of @paneherd-hosts", target)
	}
	if err != nil {
		return tellClient(ctx, e, client, err.Error())
	}
	return showRemote(ctx, e, client, h, where)
}

// tellClient shows a message on the client's status line (a key binding has no terminal
// to print to) and returns nil: the message was delivered.
func tellClient(ctx context.Context, e *env, client, msg string) error {
	text := tmux.MessageText(statusline.Clean("paneherd: " + msg))
	_, err := e.server.Run(ctx, nil, clientArgs(client, "display-message", text)...)
	return err
}

func clientArgs(client string, cmd ...string) []string {
	if client == "" {
		return cmd
	}
	return append([]string{cmd[0], "-c", client}, cmd[1:]...)
}

func quoteArg(s string) string { return strconv.Quote(s) }
