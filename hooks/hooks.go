// Package hooks carries tmux hook events to the daemon. tmux runs `paneherd hook EVENT
// ARGS` from its hooks; that process sends one datagram to the daemon's socket and exits at
// once, whether or not a daemon listens, so a hook never slows the user's command down.
// The daemon wakes on any event and reconciles with list-panes, which is the truth: hooks
// only make it look sooner (kill-pane and kill-window fire no hook at all).
package hooks

import (
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/internal/tmux"
)

// Hook is one tmux hook paneherd installs.
type Hook struct {
	Name string   // tmux hook name
	Args []string // formats passed to `paneherd hook`, expanded by tmux
}

// Tmux are the hooks the plugin installs. pane-exited gets its pane as #{hook_pane}:
// #{pane_id} there names some other pane, since the exited one is already gone.
var Tmux = []Hook{
	{"after-new-window", []string{"#{window_id}"}},
	{"after-split-window", []string{"#{pane_id}"}},
	// kill-pane fires neither pane-exited nor pane-died (docs/tmux-facts.md).
	{"after-kill-pane", nil},
	{"pane-exited", []string{"#{hook_pane}"}},
	{"pane-died", []string{"#{hook_pane}"}},
	{"window-unlinked", []string{"#{hook_window}"}},
	{"session-created", []string{"#{hook_session}"}},
	{"session-closed", []string{"#{hook_session}"}},
	// A daemon killed with SIGKILL takes its control-mode clients with it: tmux fires
	// client-detached for each, and the hook finds no daemon and revives it.
	{"client-detached", nil},
}

// Index is the array index paneherd's entries use in each hook (set-hook -g NAME[77]), so
// hooks the user set at other indexes survive and re-sourcing replaces ours in place.
const Index = 77

// Reload is the event the plugin sends after applying new options.
const Reload = "reload"

// Event is one message to the daemon.
type Event struct {
	Name string
	Args []string
}

// maxDatagram bounds an event: ids are short, an agent's file event carries a path; anything
// longer is not ours.
const maxDatagram = 4096

func (e Event) encode() []byte {
	return []byte(strings.Join(append([]string{e.Name}, e.Args...), "\n"))
}

func decode(b []byte) (Event, error) {
	if len(b) == 0 || len(b) > maxDatagram {
		return Event{}, fmt.Errorf("hooks: datagram of %d bytes", len(b))
	}
	parts := strings.Split(string(b), "\n")
	return Event{Name: parts[0], Args: parts[1:]}, nil
}

// Command is the tmux command a hook runs: run-shell -b, so tmux never waits on it, and
// each format quoted with #{q:...} so an id like $3 reaches the shell as text.
func (h Hook) Command(binary, socket string) string {
	words := []string{Invocation(binary, socket), "hook", h.Name}
	for _, a := range h.Args {
		words = append(words, quoteFormat(a))
	}
	return "run-shell -b " + tmux.Quote(strings.Join(words, " "))
}

// Invocation is the shell words that run paneherd against the server at socket, for
// hooks, key bindings and #() jobs: tmux expands formats in those, so the paths are
// quoted for both the shell and tmux.
func Invocation(binary, socket string) string {
	return tmux.ShellWord(binary) + " -S " + tmux.ShellWord(socket)
}

// quoteFormat turns #{x} into #{q:x}: tmux then escapes the value for the shell.
func quoteFormat(f string) string {
	return "#{q:" + strings.TrimSuffix(strings.TrimPrefix(f, "#{"), "}") + "}"
}
