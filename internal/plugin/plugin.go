// Package plugin applies paneherd to a tmux server: the status-bar placeholder, the hooks,
// the key bindings and the environment the notifications need. The TPM entry runs it
// through `paneherd plugin apply`, so the logic lives in Go and is tested there; the
// shell glue only builds the binary and calls it.
package plugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Placeholder is what users write in status-left/right where the badges go.
const Placeholder = "#{paneherd_status}"

// StatusOption is the user option the daemon sets in push mode.
const StatusOption = "@paneherd_status"

// defaultRightLength is tmux's status-right-length; badges need more.
const (
	defaultRightLength = "40"
	roomyRightLength   = "160"
)

// updateEnvironment are the variables a desktop notification needs, which tmux's default
// update-environment lacks; with them in the list, a client attaching from a desktop
// session hands them to the server's environment, where the daemon finds them.
var updateEnvironment = []string{"DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY"}

// Plugin is paneherd applied to one tmux server.
type Plugin struct {
	Server tmux.Server
	Binary string // absolute path of the paneherd binary
	Values options.Values
}

// Apply sets everything up in two tmux invocations: one to read what the user has, one
// to change it.
func (p Plugin) Apply(ctx context.Context) error {
	cur, err := p.readCurrent(ctx)
	if err != nil {
		return err
	}
	var cmds [][]string
	cmds = append(cmds, p.statusCommands(cur)...)
	cmds = append(cmds, p.hookCommands()...)
	cmds = append(cmds, p.bindingCommands()...)
	cmds = append(cmds, environmentCommands(cur.updateEnv)...)
	if _, err := p.Server.Run(ctx, nil, tmux.Chain(cmds)...); err != nil {
		return fmt.Errorf("plugin: apply: %w", err)
	}
	return nil
}

// current is what the user's configuration has now.
type current struct {
	left, right, rightLength string
	updateEnv                []string
}

func (p Plugin) readCurrent(ctx context.Context) (current, error) {
	const sep = "paneherd-plugin-read-separator"
	out, err := p.Server.Run(ctx, nil, tmux.Chain([][]string{
		{"show-options", "-gv", "status-left"}, {"display-message", "-p", sep},
		{"show-options", "-gv", "status-right"}, {"display-message", "-p", sep},
		{"show-options", "-gv", "status-right-length"}, {"display-message", "-p", sep},
		{"show-options", "-gv", "update-environment"},
	})...)
	if err != nil {
		return current{}, fmt.Errorf("plugin: read options: %w", err)
	}
	parts := strings.Split(out, sep+"\n")
	if len(parts) != 4 {
		return current{}, fmt.Errorf("plugin: read options: unexpected output %q", out)
	}
	trim := func(s string) string { return strings.TrimSuffix(s, "\n") }
	return current{left: trim(parts[0]), right: trim(parts[1]), rightLength: trim(parts[2]),
		updateEnv: strings.Fields(parts[3])}, nil
}

// statusCommands replace the placeholder in status-left and status-right, and make room
// for the badges when the user left status-right-length at tmux's default.
func (p Plugin) statusCommands(cur current) [][]string {
	segment := p.segment()
	var cmds [][]string
	for _, opt := range []struct{ name, value string }{{"status-left", cur.left}, {"status-right", cur.right}} {
		if strings.Contains(opt.value, Placeholder) {
			cmds = append(cmds, []string{"set-option", "-g", opt.name,
				tmux.LiteralArg(strings.ReplaceAll(opt.value, Placeholder, segment))})
		}
	}
	if strings.Contains(cur.right, Placeholder) && cur.rightLength == defaultRightLength {
		cmds = append(cmds, []string{"set-option", "-g", "status-right-length", roomyRightLength})
	}
	return cmds
}

// segment is what the placeholder becomes: the pushed option, or a job that reads the
// snapshot. The job's command is constant, so tmux runs one job per status-interval.
func (p Plugin) segment() string {
	if !p.Values.Push() {
		return "#(" + tmux.ShellWord(p.Binary) + " -S " + tmux.ShellWord(p.Server.SocketPath()) + " status --short)"
	}
	return "#{" + StatusOption + "}"
}

func (p Plugin) hookCommands() [][]string {
	var cmds [][]string
	for _, h := range hooks.Tmux {
		cmds = append(cmds, []string{"set-hook", "-g", fmt.Sprintf("%s[%d]", h.Name, hooks.Index),
			tmux.LiteralArg(h.Command(p.Binary, p.Server.SocketPath()))})
	}
	return cmds
}

// bindingCommands bind the configured keys in the prefix table; an empty key means the
// user wants no binding.
func (p Plugin) bindingCommands() [][]string {
	var cmds [][]string
	for _, b := range Bindings {
		key := p.Values.Get(b.Option)
		if key == "" {
			continue
		}
		cmds = append(cmds, []string{"bind-key", "-N", b.Note, key, "run-shell", "-b",
			tmux.LiteralArg(p.runCommand(b.Args...))})
	}
	return cmds
}

// runCommand is a shell command line running paneherd against this server. Formats in it
// (#{client_name}) are expanded by run-shell when the key is pressed.
func (p Plugin) runCommand(args ...string) string {
	words := []string{tmux.ShellWord(p.Binary), "-S", tmux.ShellWord(p.Server.SocketPath())}
	return strings.Join(append(words, args...), " ")
}

// environmentCommands add what update-environment lacks, once: re-sourcing the config
// must not grow the list.
func environmentCommands(have []string) [][]string {
	var cmds [][]string
	for _, v := range updateEnvironment {
		if !contains(have, v) {
			cmds = append(cmds, []string{"set-option", "-ga", "update-environment", v})
		}
	}
	return cmds
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
