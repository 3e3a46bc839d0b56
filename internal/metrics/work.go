package metrics

import "sync"

// Work is one count of what the daemon has made tmux and the disk do so far, read at each
// scrape: tmux commands by name, notifications tmux sent by kind, bytes of %output
// relayed, store commits, snapshot writes, status pushes. It says where the CPU of a
// watched fleet goes (the benchmark reads it over a window).
type Work struct {
	Kind, Name string
	Count      uint64
}

// work is the paneherd_work_total family: one function, asked at each scrape.
type work struct {
	family
	mu sync.Mutex
	f  func() []Work
}

func newWork() *work {
	w := &work{family: family{name: "paneherd_work_total", kind: counter,
		help: "What the daemon made tmux and the disk do, by kind (tmux_command, tmux_notification, tmux_output_bytes, store_commit, snapshot_write, status_push) and name."}}
	w.read = w.series
	return w
}

// series asks the function outside the lock: it takes the observer's and watcher's.
func (w *work) series() []series {
	w.mu.Lock()
	f := w.f
	w.mu.Unlock()
	if f == nil {
		return nil
	}
	var ss []series
	for _, c := range f() {
		ss = append(ss, series{labels("kind", c.Kind, "name", c.Name), c.Count})
	}
	return ss
}

// WorkDone makes f the source of paneherd_work_total, called once at each scrape.
func (s *Set) WorkDone(f func() []Work) {
	s.work.mu.Lock()
	s.work.f = f
	s.work.mu.Unlock()
}
