package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeSSH puts an `ssh` on the rig's PATH that, whatever it is asked, runs paneherd's
// follow against remote's server in remote's environment, after a line of noise as a
// remote shell's rc file prints: remote stands in for another machine.
func fakeSSH(t *testing.T, r, remote *rig) {
	t.Helper()
	dir := t.TempDir()
	var env []string
	for _, kv := range remote.env {
		env = append(env, shellQuote(kv))
	}
	script := "#!/bin/sh\necho 'Welcome to devbox'\nexec env -i " + strings.Join(env, " ") + " " +
		shellQuote(binary) + " -S " + shellQuote(remote.tmux.Server.Socket) + " follow --json\n"
	if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r.env = append(r.env, "PATH="+dir+":"+os.Getenv("PATH"))
}

// TestFleetShowsAnotherServersPanes: with @paneherd-hosts, a state change on another
// server's pane (the "remote", reached through ssh) shows in this server's bar as drawn
// on a real client, its hostile name escaped; it is notified here, named with its host;
// status --json shows its host; and a host that goes away is said to be unreachable.
func TestFleetShowsAnotherServersPanes(t *testing.T) {
	remote := newRig(t)
	pwned := filepath.Join(remote.home, "pwned")
	id := remote.tmux.NewSession("fx", twoScreens(fixture(t, "claude/06-READY-after-short-answer.txt"),
		fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")))
	remote.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", "claude")
	remote.tmux.Run("set-option", "-p", "-t", id, "@paneherd-name", "#(touch "+pwned+")")
	remote.start()

	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	fakeSSH(t, r, remote)
	r.source(`set -g status-left ''
set -g window-status-format ''
set -g window-status-current-format ''
set -g status-right '#{@paneherd_status}'
set -g status-right-length 200
set -g @paneherd-hosts devbox
set -g @paneherd-name-max 200
`)
	r.start()
	bar := statusBar(t, r, "main")
	r.waitFor("the remote pane READY in the bar", 30*time.Second, func() bool {
		return strings.Contains(bar(), "[devbox/#(touch "+pwned+"): READY]")
	})
	remote.tmux.Run("send-keys", "-t", id, "Enter")
	r.waitFor("the remote pane's dialog in the bar", 30*time.Second, func() bool {
		return strings.Contains(bar(), "[devbox/#(touch "+pwned+"): NEEDS_CONFIRMATION]")
	})
	t.Logf("status line as drawn: %q", strings.TrimSpace(bar()))
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("a remote pane's name ran as a command")
	}

	out, _, _ := r.paneherd("status", "--json")
	var st struct {
		Panes []struct{ Host, Name, State string }
		Hosts []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	hosts := map[string]string{}
	for _, p := range st.Panes {
		hosts[p.Name] = p.Host
	}
	if hosts["main"] != "" || hosts["#(touch "+pwned+")"] != "devbox" || len(st.Hosts) != 1 || st.Hosts[0].State != "up" {
		t.Errorf("status --json: %s", out)
	}

	r.waitFor("the dialog notified here, named with its host", 20*time.Second, func() bool {
		out, _, _ := r.paneherd("history", "--json")
		return strings.Contains(out, `devbox/#(touch `) && strings.Contains(out, "needs your confirmation")
	})

	remote.tmux.Run("kill-server")
	r.waitFor("the host unreachable in the bar", 30*time.Second, func() bool {
		return strings.Contains(bar(), "[devbox: unreachable]")
	})
	t.Logf("status line as drawn: %q", strings.TrimSpace(bar()))
}
