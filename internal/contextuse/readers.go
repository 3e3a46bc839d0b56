package contextuse

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// Every is how often Readers look at their files when no hook says one changed: a stat
// each when nothing was appended.
const Every = 2 * time.Second

// Readers read the files of the panes' agents, each pane's one file at a time, in a
// goroutine of their own (Run): never on the watcher's path.
type Readers struct {
	// Window gives a model's window from the agent's pack; 0: not known.
	Window func(agent, model string) int64
	// Changed is told each pane's context when it changes; it reports false for a pane
	// not watched (yet: a hook may come before the watcher's first look at its pane),
	// which is then told again at the next look. It may block briefly (the watcher's
	// publish).
	Changed func(paneID string, c wire.Context) bool
	// Hint, if set, gives the model a hook named for a pane's last context, for a pane
	// whose hooks have not named one since the daemon started (File.Context).
	Hint func(paneID string) string
	// Failed, if set, is told when a file cannot be read (not ours to read, say), once
	// until it is read again; a file not there (yet) is waited for, not told.
	Failed func(paneID, path string, err error)

	mu    sync.Mutex
	panes map[string]*paneFile
	wake  chan struct{}
}

// paneFile is a pane's file and what it last told.
type paneFile struct {
	file   *File
	hint   string       // the model the agent's hooks named for this file
	told   wire.Context // what Changed was last given
	failed bool         // Failed was told of this file
	// fresh: the file was not read since it was followed: what it tells goes to
	// Changed even when it is nothing yet (a new conversation's file, not written yet,
	// tells that the last one's figure is over).
	fresh bool
}

// Follow makes the pane's context come from an agent's file, as the agent's hook named it
// (path), and looks at it soon; model, when not "", is the model the hook named. The same
// path again keeps what was read of it; another replaces it (a new conversation).
func (r *Readers) Follow(paneID, agent, path, model string) error {
	hint := ""
	if r.Hint != nil {
		hint = r.Hint(paneID) // before r.mu: the watcher, which Hint reads, calls Forget under its lock
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.panes == nil {
		r.panes = map[string]*paneFile{}
	}
	pf := r.panes[paneID]
	if pf == nil {
		pf = &paneFile{hint: hint}
		r.panes[paneID] = pf
	}
	if path != "" && (pf.file == nil || pf.file.Path() != path || pf.file.Agent != agent) {
		f, err := Open(agent, path)
		if err != nil {
			return err
		}
		if pf.file != nil {
			pf.hint = ""
		}
		pf.file, pf.failed, pf.fresh = f, false, true
	}
	if model != "" {
		pf.hint = model
	}
	r.poke()
	return nil
}

// Forget stops reading the pane's file (its agent's session ended, or the pane is gone).
func (r *Readers) Forget(paneID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.panes, paneID)
}

// Poke makes Run look at every file now (a hook said an agent answered).
func (r *Readers) Poke() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.poke()
}

func (r *Readers) poke() {
	if r.wake == nil {
		r.wake = make(chan struct{}, 1)
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run looks at the files every Every, and when poked, until ctx ends.
func (r *Readers) Run(ctx context.Context) {
	r.Poke() // makes wake
	r.mu.Lock()
	wake := r.wake
	r.mu.Unlock()
	tick := time.NewTicker(Every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-wake:
		}
		r.Look()
	}
}

// Look reads what each file has appended, and tells the contexts that changed. Run calls
// it; it is not to be called while another Look runs.
func (r *Readers) Look() {
	for _, id := range r.paneIDs() {
		c, changed := r.read(id)
		if changed && r.Changed != nil && !r.Changed(id, c) {
			r.untold(id)
		}
	}
}

// untold has the pane's context told again at the next look: the watcher did not have
// the pane yet.
func (r *Readers) untold(paneID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if pf := r.panes[paneID]; pf != nil {
		pf.fresh = true
	}
}

func (r *Readers) paneIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.panes))
	for id := range r.panes {
		ids = append(ids, id)
	}
	return ids
}

// read reads one pane's file and reports its context when it changed. The file is read
// without r.mu (Follow never waits for a read; only Look reads, one pane at a time); what
// it told counts only if the pane still follows that file.
func (r *Readers) read(paneID string) (wire.Context, bool) {
	r.mu.Lock()
	pf := r.panes[paneID]
	if pf == nil || pf.file == nil {
		r.mu.Unlock()
		return wire.Context{}, false
	}
	f, hint := pf.file, pf.hint
	r.mu.Unlock()
	err := f.Read()
	c := f.Context(func(model string) int64 {
		if r.Window == nil {
			return 0
		}
		return r.Window(f.Agent, model)
	}, hint)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.panes[paneID] != pf || pf.file != f {
		return wire.Context{}, false // followed another file meanwhile: the next look reads it
	}
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		if !pf.failed && r.Failed != nil {
			r.Failed(paneID, f.Path(), err)
		}
		pf.failed = true
		return wire.Context{}, false
	}
	pf.failed = false
	if c == pf.told && !pf.fresh {
		return c, false
	}
	pf.told, pf.fresh = c, false
	return c, true
}
