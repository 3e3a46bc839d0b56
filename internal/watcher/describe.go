package watcher

import (
	"strconv"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

// describe builds a pane's record from what tmux says of it; the state fields are filled
// in by the caller from the tracker.
func describe(info tmux.Pane, p *pane, server string) wire.Pane {
	rec := p.rec
	rec.Server = server
	rec.ID = info.ID
	rec.Session = statusline.Clean(info.Session)
	rec.Window = statusline.Clean(info.Window)
	rec.WindowIndex = info.WindowIndex
	rec.PaneIndex = info.PaneIndex
	rec.Name = statusline.Clean(Name(info))
	rec.Command = info.Command
	rec.PID = info.PID
	rec.CWD = info.CWD
	rec.Pack = ""
	if p.pack != nil {
		rec.Pack = p.pack.Name
	}
	rec.Context = p.context()
	return rec
}

// Name is what the status line calls a pane: its @paneherd-name, else its window's name,
// with ".N" (the pane index) when the window has several panes.
func Name(info tmux.Pane) string {
	if info.OptName != "" {
		return info.OptName
	}
	if info.WindowPanes > 1 {
		return info.Window + "." + strconv.Itoa(info.PaneIndex)
	}
	return info.Window
}

// changedRecord reports whether the record changed in a way worth a database write: its
// state, or who it is. Summaries change with every spinner frame and only go to the
// snapshot.
func changedRecord(a, b wire.Pane) bool {
	a, b = withoutSummary(a), withoutSummary(b)
	a.LastSeen, b.LastSeen = time.Time{}, time.Time{}
	return a != b
}

// withoutSummary is a record without its summary, to tell a change of summary alone.
func withoutSummary(r wire.Pane) wire.Pane {
	r.Summary = ""
	return r
}

// deathSummary says how a dead pane's process ended, when tmux knows.
func deathSummary(info tmux.Pane) string {
	if info.DeadStatus < 0 {
		return "exited"
	}
	return "exited with status " + strconv.Itoa(info.DeadStatus)
}
