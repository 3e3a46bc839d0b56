package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/sshtest"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestTerminalOverSSH: tmux runs where the person logged in with SSH; its client's tty
// is sshd's, and the notification travels back through the SSH connection to the
// person's terminal (script(1) here, recording), which auto knows by LC_TERMINAL, the
// variable iTerm2 sets for SSH to carry.
func TestTerminalOverSSH(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", "")
	sshd := sshtest.Start(t, sshtest.Options{})
	remote := "exec tmux -u -S " + shellQuote(h.Server.Socket) + " attach -t work"
	ssh := []string{"exec env TERM=xterm-256color LC_TERMINAL=iTerm2 ssh -F", shellQuote(sshd.Config), "-tt",
		"-o BatchMode=yes -o SendEnv=LC_TERMINAL remote", shellQuote(remote)}
	term := inScript(t, h, strings.Join(ssh, " "))
	c := onlyClient(t, h, func(Client) bool { return true })
	backend := Terminal{Server: h.Server, Mode: "auto"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	line, err := backend.Describe(ctx)
	if want := "osc9 to " + c.TTY + " (LC_TERMINAL=iTerm2 in its environment)"; err != nil || line != want {
		t.Errorf("Describe = %q, %v; want %q", line, err, want)
	}
	if err := backend.Send(ctx, hostile()); err != nil {
		t.Fatalf("Send: %v", err)
	}
	seq := []byte("\x1b]9;" + noSemicolon(hostileTitle+": "+hostileBody) + "\x1b\\")
	if n, inside := onBoundaries(term.waitFor(t, seq), seq); n != 1 || len(inside) > 0 {
		t.Errorf("the terminal got it %d times, %d inside another sequence", n, len(inside))
	}
}
