package plugin

import (
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Binding is a key paneherd binds in the prefix table.
type Binding struct {
	Option options.Opt[string] // the @paneherd-key-... option naming the key
	Note   string              // shown by list-keys -N
	// Command is the tmux command the key runs, with its arguments.
	Command func(p Plugin) []string
}

// Bindings are the keys the plugin binds. Formats in run-shell commands (#{pane_id},
// #{client_name}) are expanded when the key is pressed.
var Bindings = []Binding{
	{options.KeyMenu, "paneherd: menu of workers", runShell("menu", "--client", "#{q:client_name}")},
	{options.KeyNext, "paneherd: jump to the next pane needing attention", runShell("jump", "--client", "#{q:client_name}")},
	{options.KeySend, "paneherd: send a prompt to this pane", func(p Plugin) []string {
		return p.SendPrompt("#{q:pane_id}", "#{pane_id}")
	}},
	{options.KeySendTo, "paneherd: send a prompt to a worker chosen from a menu", runShell("menu", "--send", "--client", "#{q:client_name}")},
	{options.KeyApprove, "paneherd: approve the dialog here, else the longest waiting", runShell("approve", "--client", "#{q:client_name}")},
	{options.KeyDeny, "paneherd: deny the dialog here, else the longest waiting", runShell("deny", "--client", "#{q:client_name}")},
}

func runShell(args ...string) func(p Plugin) []string {
	return func(p Plugin) []string { return []string{"run-shell", "-b", p.runCommand(args...)} }
}

// PromptBuffer carries a prompt typed at command-prompt to paneherd send: the text goes
// through a tmux buffer, never through a shell command line.
const PromptBuffer = "paneherd-prompt"

// SendPrompt is a command-prompt that sends what the person types to target (a pane id,
// HOST:TARGET, or #{q:pane_id}), named in the prompt as label. %%% is the answer escaped
// for tmux's parser; the person is the one typing, so the send does not defer to their
// typing.
func (p Plugin) SendPrompt(target, label string) []string {
	// command-prompt replaces %1 to %9 in its template with the answer, in a pane id too
	// (%12 would become "<answer>2"): every word of the line is single-quoted, so an empty
	// quote after each '%' keeps the shell's word the same and tmux's replacement off it.
	send := p.runCommand("send", "--buffer", PromptBuffer, "--force", "--reason", "key-binding",
		"--client", "#{q:client_name}", target)
	send = strings.ReplaceAll(send, "%", "%''")
	template := `set-buffer -b ` + PromptBuffer + ` -- "%%%" ; run-shell -b ` + tmux.Quote(send)
	return []string{"command-prompt", "-p", "send to " + label + ":", template}
}

// SwitchTo is the command that takes client to target, a pane of a host of
// @paneherd-hosts (HOST:TARGET): paneherd switch, in the background, as a menu's item.
func (p Plugin) SwitchTo(client, target string) []string {
	return runShell("switch", "--client", client, "--", target)(p)
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
		key := b.Option.In(p.Values)
		if key == "" {
			continue
		}
		if cmd, taken := existing[key]; taken && !p.ours(cmd) {
			warnings = append(warnings, fmt.Sprintf("prefix %s is already bound (%s); set %s%s to a free key", key, cmd, options.Prefix, b.Option.Name()))
			continue
		}
		cmd := b.Command(p)
		cmd[len(cmd)-1] = tmux.LiteralArg(cmd[len(cmd)-1])
		cmds = append(cmds, append([]string{"bind-key", "-N", b.Note, key}, cmd...))
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

// runCommand is a shell command line running paneherd against this server with args,
// for run-shell: each is one shell word, whatever it holds (a pane id a host sent, a
// client's name), except a #{q:...} format, which run-shell expands, quoted for the
// shell, when the key is pressed.
func (p Plugin) runCommand(args ...string) string {
	words := []string{hooks.Invocation(p.Binary, p.Server.SocketPath())}
	for _, a := range args {
		if !isQuotedFormat(a) {
			a = tmux.ShellWord(a)
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// isQuotedFormat says whether arg is one #{q:...} format: its value is the shell's word.
func isQuotedFormat(arg string) bool {
	return strings.HasPrefix(arg, "#{q:") && strings.HasSuffix(arg, "}") && strings.Count(arg, "}") == 1
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
