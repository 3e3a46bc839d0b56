package tmux

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Commander runs one tmux command without starting a tmux client: a control-mode
// client's stdin. failed is tmux's own verdict on the command (its output then says
// why); err is about the way there: ErrViaClosed when that is gone and nothing was
// sent, another error (naming the command) when the command may have run.
type Commander interface {
	Command(ctx context.Context, args ...string) (out string, failed bool, err error)
}

// ErrViaClosed is returned by a Commander that can no longer run commands; Server.Run
// then starts a tmux client as usual.
var ErrViaClosed = errors.New("tmux: command channel closed")

// runVia runs a chain (commands separated by lone ";") one command at a time, stopping
// at the first failure as a tmux client does.
func (s Server) runVia(ctx context.Context, args []string) (string, error) {
	var out strings.Builder
	for i, cmd := range split(args) {
		text, failed, err := s.Via.Command(ctx, cmd...)
		if errors.Is(err, ErrViaClosed) && i > 0 {
			// Part of the chain has run: Run must not start it all again in a process.
			return out.String(), fmt.Errorf("tmux %s: %v, after the commands before it ran", cmd[0], err)
		}
		if err != nil {
			return out.String(), err
		}
		if failed {
			return out.String(), commandFailed("tmux "+cmd[0], strings.TrimSpace(text))
		}
		out.WriteString(text)
	}
	return out.String(), nil
}

// runsOthers reports whether a chain holds a command that runs commands of its own
// (if-shell's branches, a file's commands). tmux 3.3a gives each of those a %begin/%end
// block of its own on a control client, which a Commander would take for the replies to
// the commands sent after.
func runsOthers(args []string) bool {
	for _, cmd := range split(args) {
		switch cmd[0] {
		case "if-shell", "if", "run-shell", "run", "source-file", "source":
			return true
		}
	}
	return false
}

// split reads a chain's arguments the way a tmux client reads its argv (tmux 3.3a's
// cmd_parse_from_arguments): a word ending in ";" ends a command, the rest of the word
// being an argument; "\;" at the end of a word is a literal ";" (see LiteralArg).
func split(args []string) [][]string {
	var cmds [][]string
	var cmd []string
	end := func() {
		if len(cmd) > 0 {
			cmds = append(cmds, cmd)
		}
		cmd = nil
	}
	for _, a := range args {
		word, ends := strings.CutSuffix(a, ";")
		switch {
		case !ends:
			cmd = append(cmd, a)
		case strings.HasSuffix(word, `\`):
			cmd = append(cmd, strings.TrimSuffix(word, `\`)+";")
		default:
			if word != "" {
				cmd = append(cmd, word)
			}
			end()
		}
	}
	end()
	return cmds
}
