package plugin

import (
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Binding is a key paneherd binds in the prefix table.
type Binding struct {
	Option string   // the @paneherd-key-... option naming the key
	Note   string   // shown by list-keys -N
	Args   []string // paneherd's arguments; formats are expanded by run-shell
}

// Bindings are the keys the plugin binds.
var Bindings = []Binding{
	{"key-menu", "paneherd: menu of workers", []string{"menu", "--client", "#{q:client_name}"}},
	{"key-next", "paneherd: jump to the next pane needing attention", []string{"jump", "--client", "#{q:client_name}"}},
}

// boundKeysOption remembers the keys paneherd bound, so a key the user moves elsewhere
// (@paneherd-key-menu changed) is unbound rather than left pointing at paneherd.
const boundKeysOption = "@paneherd_bound_keys"

// bindingCommands bind the configured keys, unbind the ones paneherd no longer uses, and
// leave alone, with a warning, a key the user bound to something else.
func (p Plugin) bindingCommands(existing map[string]string, previous []string) ([][]string, []string) {
	var cmds [][]string
	var warnings, bound []string
	for _, b := range Bindings {
		key := p.Values.Get(b.Option)
		if key == "" {
			continue
		}
		if cmd, taken := existing[key]; taken && !p.ours(cmd) {
			warnings = append(warnings, fmt.Sprintf("prefix %s is already bound (%s); set @paneherd-%s to a free key", key, cmd, b.Option))
			continue
		}
		cmds = append(cmds, []string{"bind-key", "-N", b.Note, key, "run-shell", "-b",
			tmux.LiteralArg(p.runCommand(b.Args...))})
		bound = append(bound, key)
	}
	cmds = append(cmds, p.unbindStale(existing, previous, bound)...)
	cmds = append(cmds, []string{"set-option", "-g", boundKeysOption, strings.Join(bound, " ")})
	return cmds, warnings
}

// unbindStale unbinds keys paneherd bound before and binds no more, if still its own.
func (p Plugin) unbindStale(existing map[string]string, previous, bound []string) [][]string {
	var cmds [][]string
	for _, key := range previous {
		if !contains(bound, key) && p.ours(existing[key]) {
			cmds = append(cmds, []string{"unbind-key", "-T", "prefix", key})
		}
	}
	return cmds
}

// ours reports whether a bound command is one of paneherd's.
func (p Plugin) ours(cmd string) bool {
	return strings.Contains(cmd, "paneherd") && strings.Contains(cmd, p.Server.SocketPath())
}

// runCommand is a shell command line running paneherd against this server. Formats in it
// (#{client_name}) are expanded by run-shell when the key is pressed.
func (p Plugin) runCommand(args ...string) string {
	return strings.Join(append([]string{hooks.Invocation(p.Binary, p.Server.SocketPath())}, args...), " ")
}

// parseKeys reads `list-keys -T prefix`: "bind-key [-r] -T prefix KEY COMMAND...".
func parseKeys(out string) map[string]string {
	keys := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		for i := 0; i+2 < len(f); i++ {
			if f[i] == "-T" && f[i+1] == "prefix" {
				keys[unescapeKey(f[i+2])] = strings.Join(f[i+3:], " ")
				break
			}
		}
	}
	return keys
}

// unescapeKey undoes list-keys' escaping of keys like \# and \;.
func unescapeKey(k string) string {
	if len(k) == 2 && k[0] == '\\' {
		return k[1:]
	}
	return k
}
