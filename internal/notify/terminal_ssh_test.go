package notify

import (
	"context"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestTerminalOverSSH: tmux runs where the person logged in with SSH; its client's tty
// is sshd's, and the notification travels back through the SSH connection to the
// person's terminal (script(1) here, recording), which auto knows by LC_TERMINAL, the
// variable iTerm2 sets for SSH to carry.
func TestTerminalOverSSH(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("work", "")
	port := loopbackSSHD(t, h.Dir)
	key := filepath.Join(h.Dir, "ssh", "user")
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	remote := "exec tmux -u -S " + shellQuote(h.Server.Socket) + " attach -t work"
	ssh := []string{"exec env TERM=xterm-256color LC_TERMINAL=iTerm2 ssh -F /dev/null -tt -i", shellQuote(key),
		"-p", strconv.Itoa(port), "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
		"-o BatchMode=yes -o SendEnv=LC_TERMINAL", shellQuote(me.Username + "@127.0.0.1"), shellQuote(remote)}
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

// loopbackSSHD starts sshd on 127.0.0.1 for the test's user, with keys made in dir/ssh,
// and returns its port once it accepts connections.
func loopbackSSHD(t *testing.T, dir string) int {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd" // sbin is often off a user's PATH
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is needed")
	}
	if _, err := os.Stat(sshd); err != nil {
		t.Skip("sshd (openssh-server) is needed")
	}
	if _, err := os.Stat("/run/sshd"); os.Geteuid() == 0 && err != nil {
		t.Skip("sshd run as root needs its privilege separation directory /run/sshd (the openssh-server service makes it)")
	}
	keys := filepath.Join(dir, "ssh")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"host", "user"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(keys, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(keys, "user.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keys, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	config := strings.Join([]string{
		"ListenAddress 127.0.0.1", "Port " + strconv.Itoa(port),
		"HostKey " + filepath.Join(keys, "host"), "AuthorizedKeysFile " + filepath.Join(keys, "authorized_keys"),
		"PidFile none", "StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password", "AcceptEnv LC_*", "PrintMotd no", "PrintLastLog no", "LogLevel ERROR",
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(keys, "sshd_config"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(keys, "sshd_config"))
	var log strings.Builder
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if !tmuxtest.Poll(10*time.Second, func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("sshd never listened: %s", log.String())
	}
	return port
}
