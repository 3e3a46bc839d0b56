// Package mcpserver is `paneherd mcp`: the Model Context Protocol over stdio, so an
// orchestrating agent can see and drive its workers without parsing text. Every tool is
// a thin layer over internal/herd, the door every front end goes through: the same
// checks, the same outcomes as the CLI. Nothing here sends raw keys.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/herd"
)

// Options shape the server.
type Options struct {
	// ReadOnly offers only the tools that do not act: list, read, wait, history.
	ReadOnly bool
	Version  string
	// Poll is how often the daemon's snapshot is read for resource updates (0: 250 ms).
	Poll time.Duration
	// Binary is the paneherd that starts the daemon when the server has none: serving
	// is asking for one. "": none is started.
	Binary string
}

// server answers one client for the daemon d.
type server struct {
	d    herd.Daemon
	opts Options
	mcp  *mcp.Server
	// life ends the tool calls under way when Run ends (a signal): the SDK waits for
	// them, and its handlers' contexts end only when the client goes.
	life context.Context

	mu   sync.Mutex
	down error // why no daemon could be started, until one is
}

// New builds the server: its tools and resources.
func New(d herd.Daemon, opts Options) *mcp.Server {
	return newServer(context.Background(), d, opts).mcp
}

func newServer(life context.Context, d herd.Daemon, opts Options) *server {
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	s := &server{d: d, opts: opts, life: life}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "paneherd", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// Subscriptions are the SDK's to keep; accepting them is all there is to do.
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	s.addTools()
	s.addResources()
	return s
}

// Run serves the client on transport t until it goes or ctx ends; resource updates are
// followed meanwhile.
func Run(ctx context.Context, d herd.Daemon, opts Options, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newServer(ctx, d, opts)
	s.down = s.start(ctx)
	go follow(ctx, d, s.mcp, s.opts.Poll)
	return s.mcp.Run(ctx, t)
}

// start starts the daemon unless one runs (or Options.Binary is "").
func (s *server) start(ctx context.Context) error {
	if s.opts.Binary == "" || s.d.PID() != 0 {
		return nil
	}
	_, err := s.d.Start(ctx, s.opts.Binary)
	return err
}

// reachable is nil once a daemon runs. Until then the server serves all the same (a
// client that only sees the connection close learns nothing), each call tries to start
// the daemon again (the tmux server may have started since), and the error says why it
// could not and what to do.
func (s *server) reachable(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down != nil {
		s.down = s.start(ctx)
	}
	if s.down == nil {
		return nil
	}
	return fmt.Errorf("paneherd mcp has no daemon: %v. It serves the tmux server "+
		"named by -L NAME or -S PATH, else the one in $TMUX, else tmux's default one: put \"-L\", \"NAME\" or "+
		"\"-S\", \"PATH\" before \"mcp\" in this MCP server's command (in a tmux pane, $TMUX up to its first "+
		"comma is the socket's path), or have the client pass TMUX on (Codex: env_vars = [\"TMUX\"] under "+
		"[mcp_servers.paneherd])", s.down)
}

const instructions = `paneherd watches the tmux panes where coding agents (Claude Code, Codex, Gemini CLI, opencode, Qwen Code) and shells run, and knows each one's state: READY (waiting for its next instruction), BUSY, NEEDS_CONFIRMATION (a dialog waits for approval), ERROR, STALLED, EXITED (the agent quit; its pane lives on), OFFLINE, UNKNOWN.
Orchestrate with: list_workers (states), send_prompt (to a READY worker; queue:true delivers when it next is), wait_worker (until it is done), read_screen (what it shows, secrets masked), approve_dialog / deny_dialog (only a dialog paneherd knows), history. A worker on another machine (its host in list_workers) is named HOST:NAME. Never poll read_screen in a loop: wait_worker waits for you. A failed action's result says its outcome and what to do.`

// addTool registers a tool whose arguments are In and whose structured result is Out.
// Arguments that do not fit In's schema (missing, wrong type, unknown) are a protocol
// error (invalid params) with the schema's complaint; the handler's *jsonrpc.Error
// passes through as one too; any other error is a tool error the model can read.
func addTool[In, Out any](s *server, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (Out, *mcp.CallToolResult, error)) {
	in := mustSchema[In]()
	in.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: %v", t.Name, err))
	}
	outSchema := mustSchema[Out]()
	t.InputSchema, t.OutputSchema = in, outSchema
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer context.AfterFunc(s.life, cancel)()
		defer cancel()
		raw := req.Params.Arguments
		if len(raw) == 0 || string(raw) == "null" {
			raw = json.RawMessage("{}")
		}
		var args map[string]any
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, invalid("%s: arguments are not a JSON object: %v", t.Name, err)
		}
		if err := resolved.Validate(args); err != nil {
			return nil, invalid("%s: %v", t.Name, err)
		}
		var v In
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, invalid("%s: %v", t.Name, err)
		}
		if there, res, err := s.onHost(ctx, req, t.Name, args); there {
			return res, err
		}
		if err := s.reachable(ctx); err != nil {
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		out, res, err := h(ctx, req, v)
		var wire *jsonrpc.Error
		switch {
		case errors.As(err, &wire):
			return nil, wire
		case err != nil:
			res = &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		return structured(out, outSchema, res)
	})
}

// structured puts out into the result as structured content and as its JSON text
// (clients that read only text see the same), as schema, out's, says it is.
func structured(out any, schema *jsonschema.Schema, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	text, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if text, err = emptyForNull(text, schema); err != nil {
		return nil, err
	}
	res.StructuredContent = json.RawMessage(text)
	res.Content = append(res.Content, &mcp.TextContent{Text: string(text)})
	return res, nil
}

func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	strict(s)
	return s
}

// typeSchemas are the types whose JSON is not what their Go fields say.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[time.Time]():     {Type: "string", Format: "date-time"},
	reflect.TypeFor[time.Duration](): {Type: "integer", Description: "nanoseconds"},
}

// invalid is a protocol error for arguments a tool cannot take.
func invalid(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
