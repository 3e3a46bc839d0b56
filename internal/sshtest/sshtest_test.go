package sshtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestSessionsHaveTheTestsEnvironment: sshd's SetEnv gives a session the test's HOME
// and PATH, and bash, as the login shell sshd runs the command with, reads that HOME's
// .bashrc, never the running user's.
func TestSessionsHaveTheTestsEnvironment(t *testing.T) {
	bin := t.TempDir()
	s := Start(t, Options{Aliases: []string{"devbox", "gpu1"}, Path: []string{bin}, Env: []string{"PANEHERD_TEST=1"}})
	if err := os.WriteFile(filepath.Join(s.Home, ".bashrc"), []byte("export FROM_RC=test-home\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, alias := range []string{"devbox", "gpu1"} {
		out, err := s.SSH("-o", "BatchMode=yes", alias, `echo "$HOME|$PATH|$PANEHERD_TEST|$TMUX_TMPDIR|$FROM_RC|$SHELL"`).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s: %v: %s", alias, err, out)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\n"), "|")
		want := []string{s.Home, bin + ":/usr/local/bin:/usr/bin:/bin", "1", filepath.Join(s.Dir, "tmux"), "test-home"}
		if len(got) != 6 {
			t.Fatalf("ssh %s: got %q", alias, out)
		}
		if shell := got[5]; !strings.HasSuffix(shell, "/bash") {
			t.Logf("the login shell is %s, not bash: which rc file it read is not checked", shell)
			want[4] = got[4]
		}
		if strings.Join(got[:5], "|") != strings.Join(want, "|") {
			t.Errorf("ssh %s: got %q, want %q", alias, got[:5], want)
		}
	}
}

// TestKillAndRestart: a killed server refuses connections (ones it served too), and
// comes back on the same port.
func TestKillAndRestart(t *testing.T) {
	s := Start(t, Options{})
	hold := s.SSH("-o", "BatchMode=yes", "remote", "sleep 60")
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hold.Process.Kill(); hold.Wait() })
	if !pollConnections(s, 1) {
		t.Fatalf("sshd serves %d connections, want 1", s.Connections())
	}
	s.Kill()
	if err := hold.Wait(); err == nil {
		t.Error("a connection sshd served outlived Kill")
	}
	if out, err := s.SSH("-o", "BatchMode=yes", "remote", "true").CombinedOutput(); err == nil || !strings.Contains(string(out), "Connection refused") {
		t.Errorf("ssh to a killed server: %v: %s", err, out)
	}
	s.Restart()
	if out, err := s.SSH("-o", "BatchMode=yes", "remote", "echo back").CombinedOutput(); err != nil || string(out) != "back\n" {
		t.Errorf("ssh after Restart: %v: %q", err, out)
	}
}

// TestUnknownKeyAliasIsRefused: ssh cannot check the server's key through
// UnknownKeyAlias, and BatchMode refuses rather than asks.
func TestUnknownKeyAliasIsRefused(t *testing.T) {
	s := Start(t, Options{})
	out, err := s.SSH("-o", "BatchMode=yes", UnknownKeyAlias, "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Host key verification failed") {
		t.Errorf("ssh %s: %v: %s", UnknownKeyAlias, err, out)
	}
}

func pollConnections(s *Server, n int) bool {
	return tmuxtest.Poll(10*time.Second, func() bool { return s.Connections() == n })
}
