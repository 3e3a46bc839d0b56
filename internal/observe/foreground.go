package observe

import (
	"slices"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Who is in front of each pane's terminal, read from /proc between tmux's lists.
//
// A command typed at a shell prompt that prints nothing (sleep 60, a quiet build step)
// leaves a screen the same as a draft typed at the prompt: only the process in front
// tells them apart. tmux reports it (#{pane_current_command}) only when listed, every
// 5 s in control mode; and the one output such a command makes, the newline that
// echoes Enter, comes before the shell has started it. So the observers read the
// foreground process group from the stat of each pane's own process (proc.StatFile, no
// tmux), when they capture a pane, and, to see a command start with nothing printed
// after it, again while the pane's shell might be starting one (control mode: every
// foregroundEvery for foregroundWindow after it printed; polling: every pane every
// pollForegrounds); a pane whose group in front changed is captured at once. A group
// other than the shell's own in front is a command running: the watcher reads the pane
// BUSY (watcher/foreground.go).
const (
	// foregroundEvery: how often the control observer reads the foreground of a pane it
	// watches. It catches a command started from a prompt within the 300 ms aimed at.
	foregroundEvery = 100 * time.Millisecond
	// foregroundWindow: a pane is watched this long after it last printed. Typing
	// prints; Enter prints its newline, and the shell forks the command within
	// milliseconds of it, or a few hundred on a machine that is loaded. (Any pane: the
	// prompt may be a shell's started from the pane's own. A pane that floods or streams
	// is paused, and tells no more output until continued: its watch lapses, and its
	// captures, every 200 ms, read its foreground. One that keeps repeating itself stays
	// live, and watched only while a shell is in front: ControlMode.Shell.)
	foregroundWindow = 2 * time.Second
	// pollForegrounds: how often the poller reads every live pane's foreground between
	// its ticks; it knows nothing of output, so an idle server pays for it. Every 100 ms
	// costs twice what every 200 ms does, less than the poller's own ticks, and 200 ms
	// misses the 300 ms aim for some quiet commands (docs/performance.md#small-costs);
	// the aim is every time, and polling is the fallback observer.
	pollForegrounds = 100 * time.Millisecond
)

// foregrounds holds each watched pane's stat file open and what it read last. Only the
// looking goroutine uses it.
type foregrounds struct {
	panes map[string]*paneFront
}

type paneFront struct {
	file *proc.StatFile
	last proc.Foreground
	name string // the name of the leader of last.Group, as tmux gives it; "": unknown
}

// read reads a pane's foreground, opening its process's stat file the first time; it
// reports whether the group in front, or its leader's name, differs from the last read,
// and false when it cannot tell (the process has gone: tmux's list says so soon). With
// rename, the leader's name is read again whatever else changed.
func (fs *foregrounds) read(p tmux.Pane, rename bool) (*paneFront, bool) {
	if p.PID <= 0 || p.Dead {
		return nil, false
	}
	if fs.panes == nil {
		fs.panes = map[string]*paneFront{}
	}
	pf := fs.panes[p.ID]
	if pf != nil && pf.file.PID() != p.PID { // respawned: another process
		fs.drop(p.ID)
		pf = nil
	}
	first := pf == nil
	if first {
		f, err := proc.OpenStat(p.PID)
		if err != nil {
			return nil, false
		}
		pf = &paneFront{file: f}
		fs.panes[p.ID] = pf
	}
	fg, err := pf.file.Foreground()
	if err != nil {
		fs.drop(p.ID)
		return nil, false
	}
	changed := first || fg.Group != pf.last.Group
	// The name is read when the group in front changes, and again when it may have
	// changed within a group: a command's group is in front from before its leader
	// execs the command, while the leader is a copy of the shell with its name (a nested
	// shell keeps it: one more small read each time); the pane's own process exec'd (its
	// comm changed); the name could not be read (cmdline is empty mid-exec). Any other
	// exec in place is named at the next full look (rename).
	if changed || rename || pf.name == "" || fg.Name != pf.last.Name || (fg.Moved() && pf.name == fg.Name) {
		name := ""
		if fg.Group > 0 {
			name, _ = proc.CommandName(fg.Group)
		}
		changed = changed || name != pf.name
		pf.name = name
	}
	pf.last = fg
	return pf, changed && !first
}

// stamp reads the foreground of the panes captured for a frame and returns the panes
// with each one's Command as /proc says it now (tmux's own list may be seconds old),
// and what was read, for Frame.Foreground; full: the frame is a full look, every name
// is read again. panes is not changed: a frame may still hold it.
func (fs *foregrounds) stamp(panes []tmux.Pane, captured map[string]string, full bool) ([]tmux.Pane, map[string]proc.Foreground) {
	fronts := make(map[string]proc.Foreground, len(captured))
	out, cloned := panes, false
	for i, p := range panes {
		if _, ok := captured[p.ID]; !ok {
			continue
		}
		pf, _ := fs.read(p, full)
		if pf == nil {
			continue
		}
		fronts[p.ID] = pf.last
		if pf.name != "" && pf.name != p.Command {
			if !cloned {
				out, cloned = slices.Clone(panes), true
			}
			out[i].Command = pf.name
		}
	}
	return out, fronts
}

// forget closes the files of panes no longer listed.
func (fs *foregrounds) forget(panes []tmux.Pane) {
	live := make(map[string]bool, len(panes))
	for _, p := range panes {
		live[p.ID] = true
	}
	for id := range fs.panes {
		if !live[id] {
			fs.drop(id)
		}
	}
}

func (fs *foregrounds) drop(id string) {
	if pf := fs.panes[id]; pf != nil {
		pf.file.Close()
		delete(fs.panes, id)
	}
}

// close closes every file.
func (fs *foregrounds) close() {
	for id := range fs.panes {
		fs.drop(id)
	}
}
