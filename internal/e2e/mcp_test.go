package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/tmux"
)

// TestMCPOverStdio drives the built binary's `paneherd mcp` as an agent's MCP client
// does: a child process on stdio. It starts the daemon itself when none runs.
func TestMCPOverStdio(t *testing.T) {
	r, _ := superviseRig(t)
	cmd := exec.Command(binary, "-S", r.tmux.Server.Socket, "mcp")
	cmd.Env = r.env
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to paneherd mcp: %v", err)
	}
	defer func() {
		session.Close()
		r.paneherd("stop")
	}()
	// A build without a stamped version (go build, go install) names itself as version does.
	version, _, _ := r.paneherd("version")
	if got := session.InitializeResult().ServerInfo.Version; "paneherd "+got != strings.TrimSpace(version) || got == "" {
		t.Errorf("the server says it is version %q; paneherd version says %q", got, strings.TrimSpace(version))
	}
	tools, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools: %v", err)
	}
	if len(tools.Tools) != 9 {
		t.Errorf("%d tools; want 9", len(tools.Tools))
	}
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_workers"})
	if err != nil || res.IsError {
		t.Fatalf("list_workers: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `"pane_id":"%0"`) || !strings.Contains(text, `"session":"main"`) {
		t.Errorf("list_workers does not show the pane: %s", text)
	}
	if r.daemons() != 1 {
		t.Errorf("%d daemons run; mcp starts the one the server lacks", r.daemons())
	}
}

// TestMCPAnswersMalformedLines: a line that is no JSON-RPC message gets its error
// (-32700 not JSON, -32600 not a valid request; the id echoed only when it is one) and
// the server reads on; a float id is refused, never taken for an integer.
func TestMCPAnswersMalformedLines(t *testing.T) {
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	cmd := exec.Command(binary, "-S", r.tmux.Server.Socket, "mcp")
	cmd.Env = r.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("paneherd mcp did not exit when its stdin closed")
		}
		r.paneherd("stop")
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	type answer struct {
		ID    any `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	exchange := func(line string) answer {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write %s: %v", line, err)
		}
		select {
		case got, ok := <-lines:
			if !ok {
				t.Fatalf("after %s: paneherd mcp closed stdout", line)
			}
			var a answer
			if err := json.Unmarshal([]byte(got), &a); err != nil {
				t.Fatalf("after %s: answer %q: %v", line, got, err)
			}
			return a
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer to %s", line)
		}
		return answer{}
	}
	for _, c := range []struct {
		name, line string
		code       int
		id         any
	}{
		{"not JSON", "hello", -32700, nil},
		{"a truncated object", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil},
		{"no jsonrpc", `{"id":2,"method":"ping"}`, -32600, 2.0},
		{"a batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600, nil},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"a float id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil},
		{"a number", `42`, -32600, nil},
		{"a method that is no string", `{"jsonrpc":"2.0","id":"m","method":7}`, -32600, "m"},
	} {
		a := exchange(c.line)
		if a.Error == nil || a.Error.Code != c.code || a.ID != c.id {
			t.Errorf("%s: answered %+v (error %+v); want code %d, id %v", c.name, a, a.Error, c.code, c.id)
		}
	}
	a := exchange(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if a.Error != nil || a.ID != 7.0 || !strings.Contains(string(a.Result), `"paneherd"`) {
		t.Errorf("initialize after the bad lines: %+v %s", a, a.Result)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if a := exchange(`{"jsonrpc":"2.0","id":"last","method":"tools/list"}`); a.Error != nil || a.ID != "last" || !strings.Contains(string(a.Result), "list_workers") {
		t.Errorf("tools/list: %+v %s", a, a.Result)
	}
}

// TestMCPWithoutADaemonSaysWhy: an MCP client that drops $TMUX and passes no -L (as the
// MCP Inspector does) starts `paneherd mcp` for the default server, which does not run
// here. It serves all the same, and each tool call is an error that names the cause and
// the fix; once that server runs, the next call starts its daemon and works.
func TestMCPWithoutADaemonSaysWhy(t *testing.T) {
	r := newRig(t)
	env := []string{"HOME=" + r.home, "PATH=" + os.Getenv("PATH"), "TMUX_TMPDIR=" + r.tmux.Dir}
	defaultServer := tmux.Server{Name: "default"}
	run := func(args ...string) {
		cmd := exec.Command("tmux", defaultServer.Args(args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
	}
	cmd := exec.Command(binary, "mcp")
	cmd.Env = env
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to paneherd mcp with no tmux server: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_workers"})
	if err != nil || !res.IsError {
		t.Fatalf("list_workers with no daemon: %v %+v; want a tool error", err, res)
	}
	said := res.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{"no tmux server runs", "-L", "-S", `env_vars = ["TMUX"]`} {
		if !strings.Contains(said, want) {
			t.Errorf("the tool error %q does not say %q", said, want)
		}
	}

	run("-f", "/dev/null", "new-session", "-d", "-s", "main", "exec sleep 100000")
	t.Cleanup(func() {
		stop := exec.Command(binary, "stop")
		stop.Env = env
		stop.Run()
		run("kill-server")
	})
	res, err = session.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_workers"})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"session":"main"`) {
		t.Errorf("list_workers once the server runs: %v %+v", err, res)
	}
}
