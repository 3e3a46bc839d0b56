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

// BuildOption is what the plugin's build has to say, shown in front of the badges: set by
// tmux-plugin/paneherd.sh while it installs ("[paneherd: downloading…] " or "[paneherd:
// building…] ", as install.sh says) and after a build failed, until one succeeds
// ("[paneherd: build failed, see <log>] "); empty otherwise. It is the bar, not a
// message: tmux shows a message for 750 ms.
const BuildOption = "@paneherd_build"

// Pending is what paneherd.tmux puts in place of the placeholder while there is no
// binary yet to apply the plugin with: the build's word, then the placeholder for
// Apply to complete.
const Pending = "#{" + BuildOption + "}" + Placeholder

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
// to change it. It returns warnings for the user: keys left alone because the user bound
// them, option values that were not valid.
func (p Plugin) Apply(ctx context.Context) ([]string, error) {
	cur, err := p.readCurrent(ctx)
	if err != nil {
		return nil, err
	}
	warnings := append([]string(nil), p.Values.Problems...)
	var cmds [][]string
	cmds = append(cmds, p.statusCommands(cur)...)
	cmds = append(cmds, p.hookCommands()...)
	bind, skipped := p.bindingCommands(cur.keys, cur.boundKeys)
	cmds = append(cmds, bind...)
	warnings = append(warnings, skipped...)
	cmds = append(cmds, environmentCommands(cur.updateEnv)...)
	if _, err := p.Server.Run(ctx, nil, tmux.Chain(cmds)...); err != nil {
		return warnings, fmt.Errorf("plugin: apply: %w", err)
	}
	return warnings, nil
}

func (p Plugin) hookCommands() [][]string {
	var cmds [][]string
	for _, h := range hooks.Tmux {
		cmds = append(cmds, []string{"set-hook", "-g", fmt.Sprintf("%s[%d]", h.Name, hooks.Index),
			tmux.LiteralArg(h.Command(p.Binary, p.Server.SocketPath()))})
	}
	return cmds
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

// current is what the user's configuration has now.
type current struct {
	left, right, leftLength, rightLength string
	interval                             string
	updateEnv                            []string
	keys                                 map[string]string // prefix key -> its command
	boundKeys                            []string          // keys paneherd bound last time
}

func (p Plugin) readCurrent(ctx context.Context) (current, error) {
	const sep = "paneherd-plugin-read-separator"
	reads := [][]string{
		{"show-options", "-gv", "status-left"}, {"show-options", "-gv", "status-right"},
		{"show-options", "-gv", "status-left-length"}, {"show-options", "-gv", "status-right-length"},
		{"show-options", "-gv", "status-interval"},
		{"show-options", "-gv", "update-environment"}, {"show-options", "-gqv", boundKeysOption},
		{"list-keys", "-T", "prefix"},
	}
	var cmds [][]string
	for i, r := range reads {
		if i > 0 {
			cmds = append(cmds, []string{"display-message", "-p", sep})
		}
		cmds = append(cmds, r)
	}
	out, err := p.Server.Run(ctx, nil, tmux.Chain(cmds)...)
	if err != nil {
		return current{}, fmt.Errorf("plugin: read options: %w", err)
	}
	parts := strings.Split(out, sep+"\n")
	if len(parts) != len(reads) {
		return current{}, fmt.Errorf("plugin: read options: unexpected output %q", out)
	}
	trim := func(s string) string { return strings.TrimSuffix(s, "\n") }
	return current{left: trim(parts[0]), right: trim(parts[1]), leftLength: trim(parts[2]),
		rightLength: trim(parts[3]), interval: trim(parts[4]), updateEnv: strings.Fields(parts[5]),
		boundKeys: strings.Fields(parts[6]), keys: parseKeys(parts[7])}, nil
}
