package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
