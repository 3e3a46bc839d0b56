package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// rig is a real daemon on a private tmux server with a stand-in agent in window "w1",
// and an MCP client of the same SDK talking to the server in process.
type rig struct {
	t        *testing.T
	tmux     *tmuxtest.Handle
	d        herd.Daemon
	pane     string
	home     string
	client   *mcp.ClientSession
	mu       sync.Mutex
	progress []string
	updated  []string
}

// binary is paneherd, built once for these tests: the daemon they talk to.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "paneherd-mcp")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "paneherd")
	build := exec.Command("go", "build", "-o", binary, "github.com/paneherd/paneherd/cmd/paneherd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver: build paneherd:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func newRig(t *testing.T, opts Options) *rig {
	h := tmuxtest.New(t)
	standin, err := filepath.Abs(filepath.Join("..", "e2e", "testdata", "standin"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config")}
	packDir := filepath.Join(home, "config", "paneherd", "packs")
	os.MkdirAll(packDir, 0o755)
	pack, _ := os.ReadFile(filepath.Join(standin, "standin.toml"))
	os.WriteFile(filepath.Join(packDir, "standin.toml"), pack, 0o644)
	d, err := herd.Of(h.Server, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, tmux: h, d: d, home: home}
	h.Run("set-environment", "-g", "PATH", standin+string(os.PathListSeparator)+os.Getenv("PATH"))
	h.Run("set-option", "-g", "@paneherd-send-quiet", "0s")
	h.Run("set-option", "-g", "@paneherd-send-limit", "100")
	r.pane = h.NewSession("main", shellQuote(filepath.Join(standin, "standin")))
	h.Run("rename-window", "-t", r.pane, "w1")
	h.Run("set-option", "-p", "-t", r.pane, "@paneherd-pack", "standin")

	// The daemon is a process of its own, as in use: its lock is a POSIX lock, which the
	// process holding it cannot see (herd.Daemon.PID).
	watch := exec.Command(binary, "-S", h.Server.Socket, "watch")
	watch.Env = h.Env()
	for k, v := range env {
		watch.Env = append(watch.Env, k+"="+v)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Process.Signal(syscall.SIGTERM); watch.Wait() })
	r.waitFor("the stand-in is READY", func() bool { return r.state() == "READY" },
		func() string { p, err := r.d.Status(); return fmt.Sprintf("%+v %v", p, err) })

	serverT, clientT := mcp.NewInMemoryTransports()
	sctx, scancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Run(sctx, r.d, Options{ReadOnly: opts.ReadOnly, Version: "test", Poll: 50 * time.Millisecond}, serverT)
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			r.mu.Lock()
			r.progress = append(r.progress, req.Params.Message)
			r.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			r.mu.Lock()
			r.updated = append(r.updated, req.Params.URI)
			r.mu.Unlock()
		},
	})
	if r.client, err = client.Connect(context.Background(), clientT, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.client.Close(); scancel(); <-served })
	return r
}

// ask has the stand-in ask its question, typed as a person would: a send would see its
// prompt still in the stand-in's input line under the question, and press Enter again.
func (r *rig) ask() {
	r.tmux.Run("send-keys", "-t", r.pane, "-l", "ask")
	r.tmux.Run("send-keys", "-t", r.pane, "Enter")
}

func (r *rig) state() string { return r.stateOf(r.pane) }

func (r *rig) stateOf(pane string) string {
	panes, err := r.d.Status()
	if err != nil {
		return ""
	}
	for _, p := range panes {
		if p.PaneID == pane {
			return p.State
		}
	}
	return ""
}

func (r *rig) waitFor(what string, cond func() bool, explain ...func() string) {
	r.t.Helper()
	if !tmuxtest.Poll(30*time.Second, cond) {
		for _, e := range explain {
			r.t.Log(e())
		}
		r.t.Fatalf("timed out waiting until %s", what)
	}
}

// call calls a tool and decodes its structured result into out.
func (r *rig) call(name string, args map[string]any, out any) *mcp.CallToolResult {
	r.t.Helper()
	res, err := r.client.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s: %v", name, err)
	}
	if out != nil && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			r.t.Fatalf("%s: %v in %s", name, err, b)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func TestToolsDriveARealWorker(t *testing.T) {
	r := newRig(t, Options{})

	var list workersOut
	r.call("list_workers", nil, &list)
	if len(list.Panes) != 1 || list.Panes[0].Name != "w1" || list.Panes[0].State != "READY" {
		t.Fatalf("list_workers = %+v", list.Panes)
	}

	// A send that is delivered and acknowledged, with a key in it the screen then shows.
	const key = "sk-ant-api03-Zx81kQ9mW2vR7tYp4LcN6bHj3DfGs5Ua0XeIo"
	var sent struct{ Outcome string }
	if res := r.call("send_prompt", map[string]any{"worker": "w1", "text": "my key is " + key}, &sent); res.IsError || sent.Outcome != "DELIVERED" {
		t.Fatalf("send_prompt: %+v %s", sent, text(res))
	}
	var screen screenOut
	r.call("read_screen", map[string]any{"worker": "w1", "lines": 20}, &screen)
	if strings.Contains(screen.Text, key) || screen.Masked == 0 || !strings.Contains(screen.Text, "my key is sk-a") {
		t.Errorf("read_screen did not mask the key (masked %d):\n%s", screen.Masked, screen.Text)
	}

	// A wait that ends completed, with progress on the way.
	r.call("send_prompt", map[string]any{"worker": "w1", "text": "work"}, nil)
	params := &mcp.CallToolParams{Name: "wait_worker", Arguments: map[string]any{"worker": "w1", "timeout_seconds": 30}}
	params.SetProgressToken("w")
	res, err := r.client.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	var waited struct{ Final_State string }
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &waited)
	if res.IsError || waited.Final_State != "completed" {
		t.Errorf("wait_worker: %s %s", b, text(res))
	}
	r.waitFor("a progress notification of the wait", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.progress) > 0
	})

	// A real dialog is approved; the same dialog, now history above the prompt, is not.
	r.ask()
	r.waitFor("the dialog", func() bool { return r.state() == "NEEDS_CONFIRMATION" })
	var answered struct{ Outcome string }
	if res := r.call("approve_dialog", map[string]any{"worker": "w1"}, &answered); res.IsError || answered.Outcome != "ANSWERED" {
		t.Errorf("approve_dialog on a live dialog: %+v %s", answered, text(res))
	}
	r.waitFor("READY again", func() bool { return r.state() == "READY" })
	res = r.call("approve_dialog", map[string]any{"worker": "w1"}, &answered)
	if !res.IsError || answered.Outcome != "NOT_A_DIALOG" || !strings.Contains(text(res), "read_screen") {
		t.Errorf("approve_dialog on a stale dialog: %+v %s", answered, text(res))
	}

	r.ask()
	r.waitFor("the dialog", func() bool { return r.state() == "NEEDS_CONFIRMATION" })
	if res := r.call("deny_dialog", map[string]any{"worker": "w1"}, &answered); res.IsError || answered.Outcome != "ANSWERED" {
		t.Errorf("deny_dialog: %+v %s", answered, text(res))
	}

	var h struct {
		Triggers []struct{ Kind, Outcome string }
	}
	r.call("history", map[string]any{"worker": "w1"}, &h)
	if len(h.Triggers) < 5 {
		t.Errorf("history holds %d actions; want the sends and answers", len(h.Triggers))
	}

	// A managed worker created and retired through the same tools.
	dir := filepath.Join(r.home, "src", "api")
	os.MkdirAll(dir, 0o755)
	var created struct {
		Worker struct {
			Name, Pane_ID  string
			Handoff_At     int
			Handoff_Prompt string
		}
		Started struct{ Final_State string }
		Prompt  struct{ Outcome string }
	}
	res = r.call("create_worker", map[string]any{"dir": dir, "pack": "standin", "prompt": "hello",
		"handoff_at": 85, "handoff_prompt": "write HANDOFF.md"}, &created)
	if res.IsError || created.Worker.Name != "api" || created.Started.Final_State != "reached" || created.Prompt.Outcome != "DELIVERED" {
		t.Fatalf("create_worker: %+v %s", created, text(res))
	}
	if created.Worker.Handoff_At != 85 || created.Worker.Handoff_Prompt != "write HANDOFF.md" {
		t.Errorf("create_worker: the worker's handoff is %d%% %q", created.Worker.Handoff_At, created.Worker.Handoff_Prompt)
	}
	if res := r.call("retire_worker", map[string]any{"name": "api"}, nil); res.IsError {
		t.Errorf("retire_worker: %s", text(res))
	}
	if panes := r.tmux.Run("list-panes", "-a", "-F", "#{pane_id}"); strings.Contains(panes, created.Worker.Pane_ID) {
		t.Errorf("the retired worker's pane %s is still there", created.Worker.Pane_ID)
	}
}

func TestBadCallsAreProtocolErrorsAndTheServerGoesOn(t *testing.T) {
	r := newRig(t, Options{})
	for _, c := range []struct {
		name string
		args map[string]any
		says string
	}{
		{"no_such_tool", nil, "no_such_tool"},
		{"send_prompt", map[string]any{"worker": "w1"}, "text"},
		{"wait_worker", map[string]any{"worker": "w1", "timeout_seconds": "soon"}, "timeout_seconds"},
		{"send_prompt", map[string]any{"worker": "nobody", "text": "hi"}, "nobody"},
		{"read_screen", map[string]any{"worker": "w1", "lines": 0.5}, "lines"},
		{"list_workers", map[string]any{"extra": 1}, "extra"},
		{"read_screen", map[string]any{"worker": 7}, "worker"},
		{"retire_worker", map[string]any{"name": "nobody"}, "nobody"},
		{"history", map[string]any{"worker": "nobody"}, "nobody"},
		{"wait_worker", map[string]any{"worker": "nobody", "timeout_seconds": 5}, "nobody"},
	} {
		_, err := r.client.CallTool(context.Background(), &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %v: error %v; want a protocol error about %q", c.name, c.args, err, c.says)
		} else if c.name != "no_such_tool" && wire.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: code %d; want invalid params", c.name, c.args, wire.Code)
		}
	}
	var list workersOut
	r.call("list_workers", nil, &list)
	if len(list.Panes) != 1 {
		t.Errorf("the server does not serve on after bad calls: %+v", list)
	}
}

func TestSubscribersHearOfChanges(t *testing.T) {
	r := newRig(t, Options{})
	uri := WorkerURI("w1")
	for _, u := range []string{uri, workersURI} {
		if err := r.client.Subscribe(context.Background(), &mcp.SubscribeParams{URI: u}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.client.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(got.Contents) != 1 || !strings.Contains(got.Contents[0].Text, `"state":"READY"`) {
		t.Fatalf("read %s: %v %+v", uri, err, got)
	}
	heard := func(want string) func() bool {
		return func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, u := range r.updated {
				if u == want {
					return true
				}
			}
			return false
		}
	}
	time.Sleep(200 * time.Millisecond) // four polls of a still worker: the test's claim, not a wait
	r.mu.Lock()
	quiet := len(r.updated)
	r.mu.Unlock()
	if quiet != 0 {
		t.Errorf("%d updates while nothing changed", quiet)
	}
	r.call("send_prompt", map[string]any{"worker": "w1", "text": "work"}, nil)
	r.waitFor("an update of the worker", heard(uri))
	r.waitFor("an update of the list", heard(workersURI))

	// Renamed: its old resource changed too (it is gone).
	r.tmux.Run("rename-window", "-t", r.pane, "w2")
	r.mu.Lock()
	r.updated = nil
	r.mu.Unlock()
	r.waitFor("an update of the old name", heard(uri))
	if _, err := r.client.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Errorf("the old name still reads")
	}
}

func TestReadOnlyOffersNoActions(t *testing.T) {
	r := newRig(t, Options{ReadOnly: true})
	tools, err := r.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil || tool.InputSchema == nil {
			t.Errorf("%s has no schema", tool.Name)
		}
	}
	if strings.Join(names, " ") != "history list_workers read_screen wait_worker" {
		t.Errorf("read-only tools: %v", names)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestSendPromptTypesOnlyIntoAgents: by default send_prompt refuses a plain shell (it
// runs whatever it is typed), queued or not, with a tool error naming the option, and
// types nothing; a managed worker takes it whatever runs there; @paneherd-mcp-send any
// allows every pane.
func TestSendPromptTypesOnlyIntoAgents(t *testing.T) {
	r := newRig(t, Options{})
	shell := "env PS1='$ ' bash --norc --noprofile"
	sh := r.tmux.NewWindow("main", "sh1", shell)
	r.waitFor("the shell READY", func() bool { return r.stateOf(sh) == "READY" })
	ran := filepath.Join(r.home, "ran")
	for _, queue := range []bool{false, true} {
		res := r.call("send_prompt", map[string]any{"worker": "sh1", "text": "touch " + ran, "queue": queue}, nil)
		if !res.IsError || !strings.Contains(text(res), "@paneherd-mcp-send any") {
			t.Errorf("send_prompt to a shell (queue %v): %s; want a tool error naming @paneherd-mcp-send", queue, text(res))
		}
	}
	if screen := r.tmux.Run("capture-pane", "-p", "-t", sh); strings.Contains(screen, "touch") {
		t.Errorf("a refused send typed into the shell:\n%s", screen)
	}

	dir := filepath.Join(r.home, "src", "plain")
	os.MkdirAll(dir, 0o755)
	var created struct{ Worker struct{ Pane_ID string } }
	if res := r.call("create_worker", map[string]any{"dir": dir, "name": "plain", "command": []string{"sh", "-c", shell}}, &created); res.IsError {
		t.Fatalf("create_worker: %s", text(res))
	}
	var sent struct{ Outcome string }
	if res := r.call("send_prompt", map[string]any{"worker": "plain", "text": "touch " + ran + "-managed"}, &sent); res.IsError || sent.Outcome != "DELIVERED" {
		t.Errorf("send_prompt to a managed worker's shell: %+v %s", sent, text(res))
	}

	r.tmux.Run("set-option", "-g", "@paneherd-mcp-send", "any")
	if res := r.call("send_prompt", map[string]any{"worker": "sh1", "text": "touch " + ran}, &sent); res.IsError || sent.Outcome != "DELIVERED" {
		t.Errorf("send_prompt to a shell with @paneherd-mcp-send any: %+v %s", sent, text(res))
	}
	r.waitFor("the command typed into the shell ran", func() bool { _, err := os.Stat(ran); return err == nil })
}
