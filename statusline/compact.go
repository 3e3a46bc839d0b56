package statusline

import (
	"sort"
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
	if full := compactContext(panes, opts); full != "" {
		out = append(out, full)
	}
	return strings.Join(out, " ")
}

// compactContext is the group of the panes whose context use reached opts.ContextAt:
// "ctx api 91%,web 88%", the fullest first, up to compactNames of them and "+N"; "" when
// none has.
func compactContext(panes []wire.Pane, opts Options) string {
	type full struct {
		p   wire.Pane
		pct int
	}
	var fulls []full
	for _, p := range panes {
		if pct, ok := opts.contextShown(p); ok {
			fulls = append(fulls, full{p, pct})
		}
	}
	if len(fulls) == 0 {
		return ""
	}
	sort.SliceStable(fulls, func(i, j int) bool { return fulls[i].pct > fulls[j].pct })
	var names []string
	for i, f := range fulls {
		if i == compactNames {
			names = append(names, "+"+strconv.Itoa(len(fulls)-i))
			break
		}
		names = append(names, shownName(f.p, opts.NameMax)+" "+strconv.Itoa(f.pct)+"%")
	}
	return "ctx " + strings.Join(names, ",")
}

// contextShown is the pane's context use when the line shows it: known, and at or past
// ContextAt.
func (o Options) contextShown(p wire.Pane) (int, bool) {
	pct, known := p.Context.UsedPct.Get()
	if o.ContextAt <= 0 || !known || pct < o.ContextAt {
		return 0, false
	}
	return pct, true
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
