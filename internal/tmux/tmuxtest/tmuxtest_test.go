package tmuxtest_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestEnvReachesPrivateServer(t *testing.T) {
	t.Setenv("TMUX", "/nonexistent/socket,1,0")
	h := tmuxtest.New(t)
	h.NewSession("s", "exec sleep 300")
	cmd := exec.Command("tmux", "-L", "test", "display-message", "-p", "#{socket_path}")
	cmd.Env = h.Env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child tmux: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != h.Server.Socket {
		t.Errorf("child reached %q, want %q", got, h.Server.Socket)
	}
	if !strings.HasPrefix(h.Server.Socket, h.Dir+"/") || len(h.Server.Socket) > 100 {
		t.Errorf("socket %q not short and inside %q", h.Server.Socket, h.Dir)
	}
}
