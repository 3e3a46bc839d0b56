package statusline

import (
	"strconv"
	"strings"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// Layouts of the line (@paneherd-layout).
const (
	LayoutBadges  = "badges"  // a badge per pane, in the user's format
	LayoutCompact = "compact" // a count per state, with the names of those needing a person
)

// compactOrder puts what needs a person last: the bar is most often status-right, and
// tmux cuts a status-right too long for its length at its start (measured with 3.3a:
// eight badges lose the first one's beginning, and the window list goes).
var compactOrder = []state.State{state.Offline, state.Exited, state.Unknown, state.Ready, state.Busy,
	state.Stalled, state.Error, state.NeedsConfirmation}

// compactNames is how many names a state needing a person lists before "+N".
const compactNames = 3

// compact renders one group per state with panes: its icon and count ("✔3"), and for a
// state needing a person the names of its panes ("?2 api,web"), each group in its style.
func compact(panes []wire.Pane, opts Options) string {
	groups := map[state.State][]wire.Pane{}
	for _, p := range panes {
		groups[state.State(p.State)] = append(groups[state.State(p.State)], p)
	}
	var out []string
	for _, st := range compactOrder {
		if len(groups[st]) == 0 {
			continue
		}
		text := Escape(opts.Icons[string(st)]) + strconv.Itoa(len(groups[st]))
		if st.NeedsAttention() {
			text += " " + compactNameList(groups[st], opts.NameMax)
		}
		if style := opts.Styles[string(st)]; style != "" {
			text = "#[" + style + "]" + text + "#[default]"
		}
		out = append(out, text)
	}
	return strings.Join(out, " ")
}

// compactNameList is up to compactNames names, each cut to nameMax, escaped, and "+N"
// for the rest.
func compactNameList(panes []wire.Pane, nameMax int) string {
	var names []string
	for i, p := range panes {
		if i == compactNames {
			names = append(names, "+"+strconv.Itoa(len(panes)-i))
			break
		}
		names = append(names, shownName(p, nameMax))
	}
	return strings.Join(names, ",")
}
