package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/remote"
	"github.com/paneherd/paneherd/internal/sshtest"
)

// sshTo is a real sshd whose sessions are remote's: they find its tmux server (TMUX),
// its HOME and XDG directories, and the paneherd under test on their PATH. remote stands
// in for another machine, reached as each of aliases.
func sshTo(t *testing.T, remote *rig, aliases ...string) *sshtest.Server {
	t.Helper()
	env := []string{"TMUX=" + remote.tmux.Server.Socket + ",1,0", "HOME=" + remote.home, "TMUX_TMPDIR=" + remote.tmux.Dir}
	for _, name := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		env = append(env, name+"="+envValue(remote.env, name))
	}
	return sshtest.Start(t, sshtest.Options{Aliases: aliases, Path: []string{filepath.Dir(binary)}, Env: env})
}

// followHosts sets this rig's @paneherd-hosts to hosts, reached through an ssh config
// holding stanzas, with a bar that shows only paneherd's line.
func (r *rig) followHosts(hosts string, stanzas ...string) string {
	r.t.Helper()
	config := filepath.Join(r.home, "ssh_config")
	if err := os.WriteFile(config, []byte(strings.Join(stanzas, "")), 0o600); err != nil {
		r.t.Fatal(err)
	}
	r.source(`set -g status-left ''
set -g window-status-format ''
set -g window-status-current-format ''
set -g status-right '#{@paneherd_status}'
set -g status-right-length 250
set -g @paneherd-name-max 200
set -g @paneherd-ssh "-F ` + config + `"
set -g @paneherd-hosts '` + hosts + `'
`)
	return config
}

// daemonSSH is how many ssh processes the rig's daemon runs now: its children named ssh.
func (r *rig) daemonSSH() int {
	procs, err := proc.Descendants(r.daemon.Process.Pid)
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range procs {
		if p.PPID == r.daemon.Process.Pid && p.Name == "ssh" && !p.Zombie {
			n++
		}
	}
	return n
}

// mostSSH samples daemonSSH until the test ends and returns the most it saw so far.
func (r *rig) mostSSH() func() int64 {
	var most atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if n := int64(r.daemonSSH()); n > most.Load() {
				most.Store(n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	r.t.Cleanup(func() { cancel(); <-done })
	return most.Load
}

// TestFleetOverSSH: another tmux server's panes (the "remote", reached by the real ssh
// through a real sshd) show in this server's bar as drawn on a real client, escaped, and
// are notified here named with their host. The daemon runs exactly one ssh for the host
// throughout, its master connection: commands run to the host through the same control
// socket (as HOST:TARGET's are) are sessions on it, and sshd serves one connection. sshd
// killed, the host is unreachable within ssh's keep-alives' bound and its panes are no
// longer shown as current; sshd back, the host is back by itself.
func TestFleetOverSSH(t *testing.T) {
	remoteRig := newRig(t)
	pwned := filepath.Join(remoteRig.home, "pwned")
	id := remoteRig.tmux.NewSession("fx", twoScreens(fixture(t, "claude/06-READY-after-short-answer.txt"),
		fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")))
	remoteRig.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", "claude")
	remoteRig.tmux.Run("set-option", "-p", "-t", id, "@paneherd-name", "#(touch "+pwned+")")
	remoteRig.start()
	sshd := sshTo(t, remoteRig, "devbox")

	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	config := r.followHosts("devbox", sshd.Stanza("devbox"))
	r.start()
	mostSSH := r.mostSSH()
	bar := statusBar(t, r, "main")
	ready, dialog := "[devbox/#(touch "+pwned+"): READY]", "[devbox/#(touch "+pwned+"): NEEDS_CONFIRMATION]"
	r.waitFor("the remote pane READY in the bar", 30*time.Second, func() bool { return strings.Contains(bar(), ready) })
	remoteRig.tmux.Run("send-keys", "-t", id, "Enter")
	r.waitFor("the remote pane's dialog in the bar", 30*time.Second, func() bool { return strings.Contains(bar(), dialog) })
	t.Logf("status line as drawn: %q", strings.TrimSpace(bar()))
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("a remote pane's name ran as a command")
	}
	r.checkStatusNamesHost(pwned)
	r.waitFor("the dialog notified here, named with its host", 20*time.Second, func() bool {
		out, _, _ := r.paneherd("history", "--json")
		return strings.Contains(out, `devbox/#(touch `) && strings.Contains(out, "needs your confirmation")
	})

	commandsShareTheConnection(t, r, sshd, config)
	if n := sshd.Connections(); n != 1 {
		t.Errorf("sshd serves %d connections after the commands, want 1", n)
	}
	r.checkHostsAndDoctor()

	sshd.Kill()
	killed := time.Now()
	// The pushed line: the bar as drawn may be under the dialog's notification a while
	// (a tmux message, display-time).
	bound := remote.AliveInterval*(remote.AliveCountMax+1) + 5*time.Second
	r.waitFor("the host unreachable in the pushed line", bound, func() bool {
		line := r.option("@paneherd_status")
		return strings.Contains(line, "[devbox: unreachable]") && !strings.Contains(line, "[devbox/")
	})
	t.Logf("unreachable %s after sshd was killed", time.Since(killed).Round(time.Millisecond))
	r.waitFor("the host unreachable in the bar", 30*time.Second, func() bool {
		return strings.Contains(bar(), "[devbox: unreachable]") && !strings.Contains(bar(), "[devbox/")
	})
	t.Logf("status line as drawn: %q", strings.TrimSpace(bar()))
	if why := r.hostWhy("devbox"); !strings.HasPrefix(why, "cannot reach devbox: connection refused") && why != "lost the connection to devbox" {
		t.Errorf("why devbox is unreachable: %q, want ssh's reason in a line", why)
	}
	sshd.Restart()
	r.waitFor("the host back by itself, its pane current", 30*time.Second, func() bool {
		return strings.Contains(bar(), dialog) && !strings.Contains(bar(), "devbox~")
	})
	t.Logf("back %s after sshd was killed (and restarted at once: the wait is the fleet's backoff)", time.Since(killed).Round(time.Millisecond))

	// A link that dies without a word (the host frozen: no FIN, no RST): the panes are
	// stale once two heartbeats are missed, the host unreachable once ssh's keep-alives
	// give up, and back by itself when the host answers again.
	sshd.Freeze()
	frozen := time.Now()
	r.waitFor("the host's panes stale in the pushed line", 2*herd.FollowHeartbeat+5*time.Second, func() bool {
		line := r.option("@paneherd_status")
		return strings.Contains(line, "[devbox~/") && !strings.Contains(line, "[devbox/")
	})
	t.Logf("stale %s after sshd froze", time.Since(frozen).Round(time.Millisecond))
	r.waitFor("the frozen host unreachable in the pushed line", bound, func() bool {
		return strings.Contains(r.option("@paneherd_status"), "[devbox: unreachable]")
	})
	// sshtest's config has ssh say only errors: its "Timeout, server not responding" is
	// info; with it, the line would say "it stopped answering".
	if why := r.hostWhy("devbox"); why != "lost the connection to devbox" {
		t.Errorf("why the frozen host is unreachable: %q", why)
	}
	t.Logf("unreachable %s after sshd froze", time.Since(frozen).Round(time.Millisecond))
	sshd.Thaw()
	r.waitFor("the thawed host back by itself", 30*time.Second, func() bool {
		line := r.option("@paneherd_status")
		return strings.Contains(line, "[devbox/") && !strings.Contains(line, "devbox~")
	})
	if n := mostSSH(); n != 1 {
		t.Errorf("the daemon ran up to %d ssh processes at once for its one host, want 1", n)
	}
}

// hostWhy is why the daemon says host is not up (status --json).
func (r *rig) hostWhy(host string) string {
	r.t.Helper()
	out, _, _ := r.paneherd("status", "--json")
	var st struct{ Hosts []struct{ Name, Why string } }
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatal(err)
	}
	for _, h := range st.Hosts {
		if h.Name == host {
			return h.Why
		}
	}
	return ""
}

// checkStatusNamesHost: status --json names each pane's host, and the host is up.
func (r *rig) checkStatusNamesHost(pwned string) {
	r.t.Helper()
	out, _, _ := r.paneherd("status", "--json")
	var st struct {
		Panes []struct{ Host, Name, State string }
		Hosts []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatal(err)
	}
	hosts := map[string]string{}
	for _, p := range st.Panes {
		hosts[p.Name] = p.Host
	}
	if hosts["main"] != "" || hosts["#(touch "+pwned+")"] != "devbox" || len(st.Hosts) != 1 || st.Hosts[0].State != "up" {
		r.t.Errorf("status --json: %s", out)
	}
}

// commandsShareTheConnection runs commands on devbox through the daemon's control
// socket, as HOST:TARGET commands do, several at once and one that goes on (follow):
// while they run, sshd serves one connection and the daemon runs one ssh.
func commandsShareTheConnection(t *testing.T, r *rig, sshd *sshtest.Server, config string) {
	t.Helper()
	conn, err := remote.NewConn(remote.Host{Label: "devbox", Dest: "devbox"}, r.files().SSH(), "-F "+remote.Quote(config))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	long := conn.Command(ctx, []string{"follow", "--json"})
	var longOut lockedBuffer
	long.Stdout = &longOut
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Go(func() {
			var out bytes.Buffer
			cmd := conn.Command(ctx, []string{"status", "--json"})
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil || !strings.Contains(out.String(), `"panes"`) {
				t.Errorf("status --json on devbox: %v, %q", err, out.String())
			}
		})
	}
	r.waitFor("the follow session's first line", 20*time.Second, func() bool { return strings.Contains(longOut.String(), `"snapshot"`) })
	connections, ssh := sshd.Connections(), r.daemonSSH()
	wg.Wait()
	cancel()
	long.Wait()
	if connections != 1 || ssh != 1 {
		t.Errorf("while 7 commands ran on devbox: sshd served %d connections, the daemon ran %d ssh; want 1 and 1", connections, ssh)
	}
}

// checkHostsAndDoctor: paneherd hosts says devbox is up, its round trip over the
// daemon's connection, its paneherd and its pane; doctor's line for it is ok.
func (r *rig) checkHostsAndDoctor() {
	r.t.Helper()
	out, errs, code := r.paneherd("hosts", "--json")
	var got struct {
		Hosts []struct {
			Name, State, Version, Via string
			RTTMS                     float64 `json:"rtt_ms"`
			Panes                     map[string]int
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		r.t.Fatalf("hosts --json: exit %d, %v: %s%s", code, err, out, errs)
	}
	if h := got.Hosts; len(h) != 1 || h[0].State != "up" || h[0].Via != "daemon" || h[0].RTTMS <= 0 ||
		!strings.HasPrefix(h[0].Version, "dev") || h[0].Panes["NEEDS_CONFIRMATION"] != 1 {
		r.t.Errorf("hosts --json: %s", out)
	}
	text, _, _ := r.paneherd("hosts")
	r.t.Logf("paneherd hosts:\n%s", text)
	lines, _ := r.doctor()
	if l := lines["host:devbox"]; len(l) != 1 || l[0].status != "ok" {
		r.t.Errorf("doctor's host line: %+v", l)
	}
}

// fakePaneherd is a paneherd on the host that follows no protocol this one reads: at
// 127.0.0.1 one that speaks a newer protocol, at 127.0.0.2 one with no follow command,
// which says so as paneherd did before follow (internal/fleet/testdata/no-follow.stderr),
// usage and all.
const fakePaneherd = `#!/bin/sh
case "$SSH_CONNECTION" in
*" 127.0.0.1 "*) echo '{"type":"snapshot","protocol":99,"version":"9.9","panes":"a shape of its own"}'; exec cat ;;
*) cat %s >&2; exit 2 ;;
esac
`

// TestFleetHostTroubles: a host whose paneherd is newer, one whose paneherd is too old to
// follow, one whose key ssh does not know and one with no paneherd each show in one line
// in the bar, in hosts and in doctor: nothing of theirs is shown, ssh never asks (an
// askpass that would say yes stands ready), and nothing hangs.
func TestFleetHostTroubles(t *testing.T) {
	bin := t.TempDir()
	noFollow, err := filepath.Abs("../fleet/testdata/no-follow.stderr")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "paneherd"), []byte(fmt.Sprintf(fakePaneherd, shellQuote(noFollow))), 0o755); err != nil {
		t.Fatal(err)
	}
	fakes := sshtest.Start(t, sshtest.Options{Aliases: []string{"newer", "older"}, Path: []string{bin}})
	bare := sshtest.Start(t, sshtest.Options{Aliases: []string{"bare"}})

	r := newRig(t)
	asked := filepath.Join(r.home, "asked")
	askpass := filepath.Join(bin, "askpass")
	if err := os.WriteFile(askpass, []byte("#!/bin/sh\necho \"$*\" >> "+shellQuote(asked)+"\necho yes\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.env = append(r.env, "SSH_ASKPASS="+askpass, "SSH_ASKPASS_REQUIRE=force")
	r.tmux.NewSession("main", "exec sleep 100000")
	r.followHosts("newer older "+sshtest.UnknownKeyAlias+" bare",
		fakes.Stanza("newer"), fakes.Stanza("older"), fakes.Stanza(sshtest.UnknownKeyAlias), bare.Stanza("bare"))
	r.start()
	bar := statusBar(t, r, "main")
	want := []string{"[newer: paneherd 9.9 too new]", "[older: paneherd too old (no follow)]", "[unknown-key: unreachable]", "[bare: unreachable]"}
	r.waitFor("each host's trouble in the bar", 30*time.Second, func() bool {
		for _, w := range want {
			if !strings.Contains(bar(), w) {
				return false
			}
		}
		return true
	})
	t.Logf("status line as drawn: %q", strings.TrimSpace(bar()))

	began := time.Now()
	out, errs, code := r.paneherd("hosts")
	t.Logf("paneherd hosts (%s):\n%s%s", time.Since(began).Round(time.Millisecond), out, errs)
	if took := time.Since(began); code != 0 || took > 15*time.Second {
		t.Errorf("hosts: exit %d after %s", code, took)
	}
	for _, w := range []string{"paneherd 9.9 too new", "paneherd too old (no follow)",
		"the host key of unknown-key is not known, and paneherd's ssh never asks (BatchMode)",
		"no paneherd on bare: install it there"} {
		if strings.Count(out, w) != 1 {
			t.Errorf("hosts says %q %d times, want once", w, strings.Count(out, w))
		}
	}
	lines, _ := r.doctor()
	for host, w := range map[string]string{"newer": "too new", "older": "too old", "unknown-key": "host key", "bare": "no paneherd"} {
		if l := lines["host:"+host]; len(l) != 1 || l[0].status != "fail" || !strings.Contains(l[0].text, w) {
			t.Errorf("doctor's line for %s: %+v, want a failure saying %q", host, l, w)
		}
	}
	if got, err := os.ReadFile(asked); err == nil {
		t.Errorf("ssh asked: %q", got)
	}
}
