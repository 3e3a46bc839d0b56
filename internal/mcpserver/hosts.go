package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/remote"
	"github.com/paneherd/paneherd/internal/wire"
)

// A tool called on a worker named HOST:NAME, HOST a host of @paneherd-hosts, is the same
// tool of that host's own `paneherd mcp`, run through ssh (herd.Host.Run) for the call:
// its checks, its policy (@paneherd-mcp-send there), its outcome, its result as it is.

// targetArgument is the argument that names the tool's worker; tools without one act
// here only.
func targetArgument(tool string) string {
	switch tool {
	case "read_screen", "wait_worker", "history", "send_prompt", "approve_dialog", "deny_dialog":
		return "worker"
	case "retire_worker":
		return "name"
	}
	return ""
}

// onHost says whether the call names a worker on a host; if so, it makes the call there
// and returns its result (or the protocol error the host answered with).
func (s *server) onHost(ctx context.Context, req *mcp.CallToolRequest, tool string, args map[string]any) (bool, *mcp.CallToolResult, error) {
	key := targetArgument(tool)
	target, _ := args[key].(string)
	if key == "" || target == "" {
		return false, nil, nil
	}
	h, where, err := s.d.Where(ctx, target)
	if errors.Is(err, wire.ErrNoTarget) {
		return true, nil, invalid("%v (list_workers shows the workers)", err)
	}
	if err != nil || h == nil {
		return err != nil, errorResult(err), nil
	}
	args[key] = where
	res, err := s.callOnHost(ctx, req, h, tool, args)
	var protocol *jsonrpc.Error
	if errors.As(err, &protocol) {
		return true, nil, protocol
	}
	if err != nil {
		return true, errorResult(err), nil
	}
	return true, res, nil
}

// callOnHost calls tool with args on h's paneherd mcp, a session of its own that ends
// with the call: its stdin closed, the host's server ends. Its progress (wait_worker)
// is passed on under the caller's token.
func (s *server) callOnHost(ctx context.Context, req *mcp.CallToolRequest, h *herd.Host, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	toHost, hostIn := io.Pipe()
	fromHost, hostOut := io.Pipe()
	var said tail
	command := []string{"mcp"}
	if s.opts.ReadOnly {
		command = append(command, "--read-only")
	}
	ran := make(chan error, 1)
	go func() {
		err := h.Run(ctx, command, toHost, hostOut, &said)
		hostOut.Close()
		toHost.Close()
		ran <- err
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "paneherd", Version: s.opts.Version},
		&mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, p *mcp.ProgressNotificationClientRequest) {
			req.Session.NotifyProgress(ctx, p.Params)
		}})
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	if token := req.Params.GetProgressToken(); token != nil {
		params.SetProgressToken(token)
	}
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: fromHost, Writer: hostIn}, nil)
	var res *mcp.CallToolResult
	if err == nil {
		res, err = session.CallTool(ctx, params)
		session.Close()
	}
	hostIn.Close()
	fromHost.Close()
	if runErr := <-ran; runErr != nil && (err != nil || res == nil) {
		return nil, fmt.Errorf("%s on %s: %w%s", tool, h.Label, runErr, said.line())
	}
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w%s", tool, h.Label, err, said.line())
	}
	return res, nil
}

func errorResult(err error) *mcp.CallToolResult {
	if err == nil {
		return nil
	}
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}

// tail keeps the end of what the host's paneherd wrote to stderr, for the error that
// says why a call on it failed: its last line.
type tail struct{ b []byte }

// tailBytes bounds what a tail keeps.
const tailBytes = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - tailBytes; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) line() string {
	if last := remote.LastLine(t.b); last != "" {
		return ": " + last
	}
	return ""
}
