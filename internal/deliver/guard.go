package deliver

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

// What tmux 3.3a does with input for a pane in a mode (copy mode; view mode, which shows
// run-shell output): paste-buffer still writes to the program, unbracketed, since the
// mode's screen has no bracketed paste; send-keys hands every key, -l too, to the mode's
// key table, where Enter is dropped (emacs keys) or copies and leaves (vi), and some keys
// open a prompt ("g", "1") whose command-prompt keeps the sender waiting until a person
// dismisses it. A mode can start at any moment (a person scrolls, a run-shell prints), so
// a look taken by one tmux call is stale by the next: the look and the keys go in one.
// if-shell -F decides at once and inserts the chosen commands right after itself, run in
// the same pass over the client's queue, before tmux reads anyone's input or runs any
// other client's command. (Server.Run sends such a chain by a tmux process, never through
// the daemon's control client: see tmux.runsOthers.)

// refusedMark starts the line the guard prints instead of running the commands.
const refusedMark = "paneherd-refused\x1f"

// blocked is true, to if-shell -F, when nothing may go into the pane: in a mode, input
// off, synchronized, dead. (if-shell -F tests the first character only: "0" or nothing is
// false.)
const blocked = "#{?pane_mode,1,#{?pane_input_off,1,#{?pane_synchronized,1,#{?pane_dead,1,0}}}}"

// guarded runs before, then cmds only if the pane at paneID passes a last look taken by
// tmux in the same command; it returns why not, or nil when cmds ran. stdin feeds before.
func (e *Engine) guarded(ctx context.Context, stdin io.Reader, paneID string, before, cmds [][]string) *wire.Result {
	refuse := []string{"display-message", "-p", "-t", paneID, refusedMark + paneFormat}
	guard := []string{"if-shell", "-F", "-t", paneID, blocked, tmux.Script([][]string{refuse}), tmux.Script(cmds)}
	out, err := e.Server.Run(ctx, stdin, tmux.Chain(append(before, guard))...)
	switch {
	case errors.Is(err, tmux.ErrNoPane):
		return fail(outcome.TargetNotFound, "pane %s is gone", paneID)
	case err != nil:
		return fail(outcome.SendKeysError, "%v", err)
	}
	line, refused := strings.CutPrefix(strings.TrimSpace(out), refusedMark)
	if !refused && tmux.Sanitised(out, refusedMark) {
		return fail(outcome.SendKeysError, "%v", tmux.ErrSanitised) // refused, and the mark garbled
	}
	if !refused {
		return nil
	}
	if now, _, ok := parsePane(line); ok {
		if bad := refusal(now, paneID); bad != nil {
			return bad
		}
	}
	return fail(outcome.SendKeysError, "tmux refused the pane: %q", line)
}

// press sends keys to the pane, unless it is in a mode (or input off, synchronized, dead).
func (e *Engine) press(ctx context.Context, paneID string, keys []string) *wire.Result {
	return e.guarded(ctx, nil, paneID, nil, [][]string{append([]string{"send-keys", "-t", paneID}, keys...)})
}
