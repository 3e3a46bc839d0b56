package mcpserver

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/herd"
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
	panes, err := s.d.Status()
	if err != nil {
		return nil, err
	}
	return jsonContents(req.Params.URI, workersOut{Panes: panes})
}

func (s *server) readWorker(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	name, err := url.PathUnescape(strings.TrimPrefix(req.Params.URI, workersURI+"/"))
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	panes, err := s.d.Status()
	if err != nil {
		return nil, err
	}
	for _, p := range panes {
		if p.Name == name || p.PaneID == name {
			return jsonContents(req.Params.URI, p)
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
// whose state, summary or name changed, and of the list when anything did. The snapshot
// is a file the daemon rewrites on every change: reading it costs microseconds.
func follow(ctx context.Context, d herd.Daemon, srv *mcp.Server, poll time.Duration) {
	seen := map[string]string{} // pane id -> what its resource says
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		panes, err := d.Status()
		if err != nil {
			continue // no daemon for now: nothing changes
		}
		now := make(map[string]string, len(panes))
		changed := len(panes) != len(seen)
		for _, p := range panes {
			key := p.Name + "\x00" + p.State + "\x00" + p.Summary
			now[p.PaneID] = key
			if seen[p.PaneID] != key {
				changed = true
				srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: WorkerURI(p.Name)})
			}
		}
		if changed {
			srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: workersURI})
		}
		seen = now
	}
}
