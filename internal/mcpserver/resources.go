package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/wire"
)

// The resources: the list of workers, and each worker by name. A client that subscribes
// hears of every change of state (follow), so it need not poll.
const (
	workersURI = "paneherd://workers"
	workerURI  = "paneherd://workers/{name}"
	jsonMIME   = "application/json"
)

func (s *server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: workersURI, Name: "workers", MIMEType: jsonMIME,
		Description: "Every pane paneherd watches and its state, as list_workers returns them; subscribe to hear each change."},
		s.readWorkers)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: workerURI, Name: "worker", MIMEType: jsonMIME,
		Description: "One worker's state by name (or pane id); subscribe to hear each change."}, s.readWorker)
}

func (s *server) readWorkers(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if err := s.reachable(ctx); err != nil {
		return nil, err
	}
	panes, err := s.d.Status()
	if err != nil {
		return nil, err
	}
	return jsonContents(req.Params.URI, workersOut{Panes: maskPanes(panes)})
}

// readWorker is one worker, named as the tools name it (herd.Resolve: a name, a pane id,
// session:window.pane).
func (s *server) readWorker(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	name, err := url.PathUnescape(strings.TrimPrefix(req.Params.URI, workersURI+"/"))
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if err := s.reachable(ctx); err != nil {
		return nil, err
	}
	p, err := s.d.Pane(name)
	if errors.Is(err, wire.ErrNoTarget) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if err != nil {
		return nil, err
	}
	panes, err := s.d.Status()
	if err != nil {
		return nil, err
	}
	for _, st := range maskPanes(panes) {
		if st.PaneID == p.ID {
			return jsonContents(req.Params.URI, st)
		}
	}
	return nil, mcp.ResourceNotFoundError(req.Params.URI)
}

func jsonContents(uri string, v any) (*mcp.ReadResourceResult, error) {
	text, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: jsonMIME, Text: string(text)}}}, nil
}

// WorkerURI is the resource of one worker.
func WorkerURI(name string) string { return workersURI + "/" + url.PathEscape(name) }

// follow reads the daemon's snapshot every poll and tells subscribers of each worker
// whose resource changed (anything in it: state, summary, its managed record), under
// both its name and its pane id, and under its old name when it was renamed or is gone;
// and of the list when anything did. The snapshot is a file the daemon rewrites on every
// change: reading it costs microseconds.
func follow(ctx context.Context, d herd.Daemon, srv *mcp.Server, poll time.Duration) {
	type shown struct{ name, json string }
	look := func() map[string]shown {
		panes, err := d.Status()
		if err != nil {
			return nil // no daemon for now: nothing to say
		}
		m := make(map[string]shown, len(panes))
		for _, p := range maskPanes(panes) {
			b, _ := json.Marshal(p)
			m[p.PaneID] = shown{p.Name, string(b)}
		}
		return m
	}
	notify := func(uri string) { srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}) }
	// The daemon replaces its files on every change (a new file renamed over the old):
	// while neither has a new inode, size or modification time, nothing has changed, and
	// nothing is read or encoded.
	type fileStamp struct {
		ino  uint64
		size int64
		mod  time.Time
	}
	stamp := func() [2]fileStamp {
		var t [2]fileStamp
		for i, path := range []string{d.Dir.Snapshot(), d.Dir.Workers()} {
			if fi, err := os.Stat(path); err == nil {
				t[i] = fileStamp{size: fi.Size(), mod: fi.ModTime()}
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					t[i].ino = st.Ino
				}
			}
		}
		return t
	}
	last := stamp()
	seen := look()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if st := stamp(); st == last {
			continue
		} else {
			last = st
		}
		now := look()
		if now == nil {
			continue
		}
		changed := false
		for id, was := range seen {
			if cur, ok := now[id]; !ok || cur.name != was.name {
				changed = true
				notify(WorkerURI(was.name)) // renamed or gone: its old resource changed
			}
		}
		for id, cur := range now {
			if seen[id] != cur {
				changed = true
				notify(WorkerURI(cur.name))
				notify(WorkerURI(id))
			}
		}
		if changed {
			notify(workersURI)
		}
		seen = now
	}
}
