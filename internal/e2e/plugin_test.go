package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// newPluginRig starts a tmux server whose environment, and so that of every run-shell,
// hook and daemon it starts, has the test's XDG dirs (and tmuxtest's empty HOME); and a
// copy of the plugin (paneherd.tmux, tmux-plugin/, bin/paneherd) as TPM would have
// cloned it, with the binary under test already built so the plugin has nothing to build.
func newPluginRig(t *testing.T) (*rig, string) {
	t.Helper()
	return newPluginRigIn(t, "paneherd")
}

// newPluginRigIn is newPluginRig with the plugin cloned into a directory of that name.
func newPluginRigIn(t *testing.T, name string) (*rig, string) {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "PANEHERD_LOG_LEVEL": "debug",
	} {
		t.Setenv(k, v)
	}
	h := tmuxtest.New(t)
	r := &rig{t: t, tmux: h, home: home, env: h.Env()}
	pluginDir := filepath.Join(home, "plugins", name)
	copyFile(t, filepath.Join("..", "..", "paneherd.tmux"), filepath.Join(pluginDir, "paneherd.tmux"))
	copyFile(t, filepath.Join("..", "..", "tmux-plugin", "paneherd.sh"), filepath.Join(pluginDir, "tmux-plugin", "paneherd.sh"))
	copyFile(t, binary, filepath.Join(pluginDir, "bin", "paneherd"))
	t.Cleanup(func() { r.paneherd("stop") })
	return r, pluginDir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, _ := in.Stat()
	os.MkdirAll(filepath.Dir(to), 0o755)
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

// source writes a tmux.conf and sources it, the way tmux does at start and TPM at
// prefix+I: the plugin's entry runs through run-shell.
func (r *rig) source(conf string) {
	r.t.Helper()
	path := filepath.Join(r.home, "tmux.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.tmux.Run("source-file", path)
}

func (r *rig) option(name string) string {
	out, _ := r.tmux.Server.Run(context.Background(), nil, "show-options", "-gqv", name)
	return strings.TrimSuffix(out, "\n")
}

// daemons counts the paneherd watch processes for this rig's server.
func (r *rig) daemons() int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) >= 4 && strings.HasSuffix(args[0], "paneherd") && args[2] == r.tmux.Server.Socket && args[3] == "watch" {
			n++
		}
	}
	return n
}

// pluginsRunning reports whether a plugin script is still at work in the background.
func pluginsRunning(pluginDir string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), pluginDir) &&
			(strings.Contains(string(b), "paneherd.sh") || strings.Contains(string(b), "plugin\x00apply")) {
			return true
		}
	}
	return false
}

func pluginConf(pluginDir, extra string) string {
	return fmt.Sprintf(`set -g status-right '#{paneherd_status} %%H:%%M'
set-hook -g after-new-window[3] 'set -g @user-hook ran'
%s
run-shell %s/paneherd.tmux
`, extra, pluginDir)
}

func TestPluginPushMode(t *testing.T) {
	r, pluginDir := newPluginRig(t)
	first := r.tmux.NewSession("main", showCommand(fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")))
	r.tmux.Run("rename-window", "-t", first, "worker-a")
	// A long tick: whatever shows within a second below was brought by a hook.
	conf := pluginConf(pluginDir, "set -g @paneherd-tick 30s")
	r.source(conf)
	r.waitFor("the pushed status shows the worker", 30*time.Second, func() bool {
		return strings.Contains(r.option("@paneherd_status"), "[worker-a: NEEDS_CONFIRMATION]")
	})
	if got := r.option("status-right"); !pushSegment(strings.TrimSuffix(got, " %H:%M")) {
		t.Errorf("status-right = %q", got)
	}
	if got := r.option("status-right-length"); got != "200" {
		t.Errorf("status-right-length = %q, want it raised from the default", got)
	}
	checkHooksAndKeys(t, r)

	// Sourced again, twice, quickly: still exactly one daemon, nothing appended twice.
	r.source(conf)
	r.source(conf)
	r.waitFor("the plugin scripts finish", 20*time.Second, func() bool { return !pluginsRunning(pluginDir) })
	if n := r.daemons(); n != 1 {
		t.Errorf("%d daemons after sourcing three times, want 1", n)
	}
	if env := strings.Fields(r.option("update-environment")); count(env, "DBUS_SESSION_BUS_ADDRESS") != 1 || count(env, "WAYLAND_DISPLAY") != 1 {
		t.Errorf("update-environment = %v", env)
	}

	checkHookLatency(t, r, first)

	out, _, code := r.paneherd("stop")
	if code != 0 || !strings.Contains(out, "stopped") {
		t.Errorf("stop: exit %d, %q", code, out)
	}
	if got := r.option("@paneherd_status"); got != "[paneherd: off]" {
		t.Errorf("@paneherd_status after stop = %q, want the off marker", got)
	}
}

// pushSegment reports whether s is what the placeholder becomes in push mode: the pushed
// option while the daemon's lease holds, then the bar's job says whether a daemon runs.
func pushSegment(s string) bool {
	return strings.HasPrefix(s, "#{@paneherd_build}#{?#{e|<|:%s,#{@paneherd_lease}},#{@paneherd_status},#{?#(") &&
		strings.HasSuffix(s, " bar),#{@paneherd_status},[paneherd: off]}}")
}

func checkHooksAndKeys(t *testing.T, r *rig) {
	t.Helper()
	// pane-exited and pane-died are window hooks: set-hook -g puts them in the global
	// window options, which show-hooks -g does not list.
	shown := r.tmux.Run("show-hooks", "-g") + "\n" + r.tmux.Run("show-hooks", "-gw")
	for _, h := range hooks.Tmux {
		if !strings.Contains(shown, fmt.Sprintf("%s[%d] run-shell -b", h.Name, hooks.Index)) {
			t.Errorf("hook %s[%d] missing:\n%s", h.Name, hooks.Index, shown)
		}
	}
	if !strings.Contains(shown, "after-new-window[3] set-option -g @user-hook ran") {
		t.Errorf("the user's own hook was lost:\n%s", shown)
	}
	keys := r.tmux.Run("list-keys", "-T", "prefix")
	for _, want := range []string{" a ", " 'menu' '--client'", " A ", " 'jump' '--client'"} {
		if !strings.Contains(keys, want) {
			t.Errorf("prefix table has no %q", want)
		}
	}
}

// checkHookLatency: with a 30 s tick, a new window, a new split and a killed pane show
// within a second only if the hooks woke the daemon.
func checkHookLatency(t *testing.T, r *rig, first string) {
	t.Helper()
	start := time.Now()
	win := r.tmux.NewWindow("main", "fresh", "exec sleep 100000")
	r.waitFor("a new window shows within 1s", time.Second, func() bool {
		return strings.Contains(r.option("@paneherd_status"), "[fresh: ")
	})
	t.Logf("new window shown after %v", time.Since(start).Round(time.Millisecond))
	if r.option("@user-hook") != "ran" {
		t.Errorf("the user's after-new-window hook did not run")
	}
	split := r.tmux.Split(win, "exec sleep 100000")
	r.waitFor("a split shows within 1s", time.Second, func() bool {
		return strings.Contains(r.option("@paneherd_status"), "[fresh.1: ")
	})
	start = time.Now()
	r.tmux.Run("kill-pane", "-t", split)
	r.waitFor("a killed pane goes within 1s", time.Second, func() bool {
		return !strings.Contains(r.option("@paneherd_status"), "[fresh.1: ")
	})
	t.Logf("killed pane gone after %v", time.Since(start).Round(time.Millisecond))

	// A process that exits closes its pane (pane-exited); with remain-on-exit the pane
	// stays, dead (pane-died); kill-window and kill-session fire window-unlinked and
	// session-closed.
	exiting := r.tmux.NewWindow("main", "exiting", "exec sleep 100000")
	dying := r.tmux.NewWindow("main", "dying", "exec sleep 100000")
	r.tmux.Run("set-option", "-p", "-t", dying, "remain-on-exit", "on")
	r.tmux.Run("new-session", "-d", "-s", "other", "-n", "elsewhere", "exec sleep 100000")
	r.waitFor("the new panes show", time.Second, func() bool {
		s := r.option("@paneherd_status")
		return strings.Contains(s, "[exiting: ") && strings.Contains(s, "[dying: ") && strings.Contains(s, "[elsewhere: ")
	})
	r.tmux.Run("respawn-pane", "-k", "-t", exiting, "exit 0")
	r.waitFor("an exited pane goes within 1s", time.Second, func() bool {
		return !strings.Contains(r.option("@paneherd_status"), "[exiting: ")
	})
	r.tmux.Run("respawn-pane", "-k", "-t", dying, "exit 4")
	r.waitFor("a dead pane shows OFFLINE within 1s", time.Second, func() bool {
		return strings.Contains(r.option("@paneherd_status"), "[dying: OFFLINE]")
	})
	r.tmux.Run("kill-window", "-t", dying)
	r.tmux.Run("kill-session", "-t", "other")
	r.waitFor("a killed window and session go within 1s", time.Second, func() bool {
		s := r.option("@paneherd_status")
		return !strings.Contains(s, "[dying: ") && !strings.Contains(s, "[elsewhere: ")
	})
}

func count(list []string, s string) int {
	n := 0
	for _, l := range list {
		if l == s {
			n++
		}
	}
	return n
}

// statusBar attaches a real client to the rig's server inside a second tmux server and
// returns a function reading the client's status line as drawn, the only place where
// tmux's own rendering of the badges can be seen.
func statusBar(t *testing.T, r *rig, session string) func() string {
	t.Helper()
	viewer := tmuxtest.New(t)
	viewer.Run("new-session", "-d", "-s", "view", "-x", "250", "-y", "40", // tall enough for an agent's dialog
		fmt.Sprintf("TMUX= exec tmux -S '%s' attach -t %s", r.tmux.Server.Socket, session))
	return func() string {
		out, _ := viewer.Server.Run(context.Background(), nil, "capture-pane", "-p", "-t", "view")
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		return lines[len(lines)-1]
	}
}

func TestStatusBarEscapesNamesInBothModes(t *testing.T) {
	for _, mode := range []string{"push", "job"} {
		t.Run(mode, func(t *testing.T) {
			r, pluginDir := newPluginRig(t)
			pwned := filepath.Join(r.home, "pwned")
			first := r.tmux.NewSession("main", "exec sleep 100000")
			r.tmux.Run("rename-window", "-t", first, "plain")
			// tmux expands formats in new-window -n: "##" makes the stored name start with "#".
			r.tmux.NewWindow("main", "##(touch "+pwned+")", "exec sleep 100000")
			r.tmux.NewWindow("main", "##[fg=red]x", "exec sleep 100000")
			r.tmux.NewWindow("main", "##{pane_id}", "exec sleep 100000")
			r.source(fmt.Sprintf(`set -g status-left ''
set -g window-status-format ''
set -g window-status-current-format ''
set -g status-interval 1
set -g @paneherd-name-max 100
set -g @paneherd-status-mode %s
set -g @paneherd-name-max 200
set -g status-right '#{paneherd_status}'
run-shell %s/paneherd.tmux
`, mode, pluginDir))
			bar := statusBar(t, r, "main")
			// Each badge must show the window's name exactly as tmux stores it.
			var want []string
			for _, name := range strings.Split(r.tmux.Run("list-windows", "-t", "main", "-F", "#{window_name}"), "\n") {
				want = append(want, "["+name+": ")
			}
			if !strings.Contains(strings.Join(want, ""), "[#(touch ") || !strings.Contains(strings.Join(want, ""), "[fg=red]x") {
				t.Fatalf("window names not as intended: %q", want)
			}
			r.waitFor("the status bar shows every name as text", 30*time.Second, func() bool {
				line := bar()
				for _, w := range want {
					if !strings.Contains(line, w) {
						return false
					}
				}
				return true
			})
			if _, err := os.Stat(pwned); err == nil {
				t.Errorf("a window name ran a command")
			}
			if mode == "job" && !strings.Contains(r.option("status-right"), " bar --badges)") {
				t.Errorf("job mode status-right = %q", r.option("status-right"))
			}
		})
	}
}

// TestPushedStatusFollowsTheScreen: with the default tick, a pane whose screen turns into
// a permission dialog shows it in #{@paneherd_status} about a tick later at most.
func TestPushedStatusFollowsTheScreen(t *testing.T) {
	r, pluginDir := newPluginRig(t)
	flag := filepath.Join(r.home, "go")
	script := fmt.Sprintf(`awk 1 %s; while [ ! -e %s ]; do sleep 0.02; done; clear; awk 1 %s; exec sleep 100000`,
		shellQuote(fixture(t, "claude/16-BUSY-thinking-before-first-token.txt")), shellQuote(flag),
		shellQuote(fixture(t, "claude/12-NEEDS_CONFIRMATION-write-file-permission-prompt.txt")))
	id := r.tmux.NewSession("main", script)
	r.tmux.Run("rename-window", "-t", id, "agent")
	r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", "claude")
	r.source(pluginConf(pluginDir, ""))
	r.waitFor("the agent shows BUSY", 30*time.Second, func() bool {
		return strings.Contains(r.option("@paneherd_status"), "[agent: BUSY]")
	})
	start := time.Now()
	os.WriteFile(flag, nil, 0o644)
	// Control mode (the default) sees the output and looks at once; with
	// @paneherd-observer poll it is one tick at worst (docs/performance.md#latencies-end-to-end).
	r.waitFor("the dialog shows in the status option", time.Second, func() bool {
		return strings.Contains(r.option("@paneherd_status"), "[agent: NEEDS_CONFIRMATION]")
	})
	t.Logf("screen change shown after %v", time.Since(start).Round(time.Millisecond))
}

// TestKeysJumpAndMenu presses the plugin's keys in a real attached client.
func TestKeysJumpAndMenu(t *testing.T) {
	r, pluginDir := newPluginRig(t)
	home := r.tmux.NewSession("main", "exec sleep 100000")
	r.tmux.Run("rename-window", "-t", home, "home")
	waiting := r.tmux.NewWindow("main", "waiting", showCommand(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	failing := r.tmux.NewWindow("main", "failing", showCommand(fixture(t, "gemini/16-ERROR-api-error-401.txt")))
	r.source(pluginConf(pluginDir, ""))
	r.waitFor("both agents are classified", 30*time.Second, func() bool {
		s := r.option("@paneherd_status")
		return strings.Contains(s, "[waiting: NEEDS_CONFIRMATION]") && strings.Contains(s, "[failing: ERROR]")
	})

	viewer := tmuxtest.New(t)
	viewer.Run("new-session", "-d", "-s", "view", "-x", "160", "-y", "30",
		fmt.Sprintf("TMUX= exec tmux -S '%s' attach -t main", r.tmux.Server.Socket))
	var client string
	r.waitFor("the client attaches", 15*time.Second, func() bool {
		for _, line := range strings.Split(r.tmux.Run("list-clients", "-F", "#{client_control_mode} #{client_name}"), "\n") {
			if name, ok := strings.CutPrefix(line, "0 "); ok {
				client = name
			}
		}
		return client != ""
	})
	current := func() string { return r.tmux.Run("display-message", "-p", "-c", client, "#{pane_id}") }
	if current() != home {
		t.Fatalf("client starts in %s, want %s", current(), home)
	}

	viewer.Run("send-keys", "-t", "view", "C-b", "A")
	r.waitFor("prefix A jumps to the waiting dialog", 15*time.Second, func() bool { return current() == waiting })
	viewer.Run("send-keys", "-t", "view", "C-b", "A")
	r.waitFor("prefix A again goes on to the error", 15*time.Second, func() bool { return current() == failing })

	viewer.Run("send-keys", "-t", "view", "C-b", "a")
	r.waitFor("prefix a opens the menu", 15*time.Second, func() bool {
		screen, _ := viewer.Server.Run(context.Background(), nil, "capture-pane", "-p", "-t", "view")
		return strings.Contains(screen, "paneherd") && strings.Contains(screen, "waiting") && strings.Contains(screen, "NEEDS_CONFIRMATION")
	})
	viewer.Run("send-keys", "-t", "view", "1") // the first item: session main, window 0
	r.waitFor("choosing an item jumps to its pane", 15*time.Second, func() bool { return current() == home })
}

// TestCrashedDaemonReplacedOnce: a daemon killed with SIGKILL leaves its socket file and
// lock file behind; loading the plugin again starts exactly one new daemon; restart
// replaces it with exactly one.
func TestCrashedDaemonReplacedOnce(t *testing.T) {
	r, pluginDir := newPluginRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.source(pluginConf(pluginDir, ""))
	r.waitFor("a daemon runs", 30*time.Second, func() bool { return r.daemons() == 1 && r.option("@paneherd_status") != "" })
	_, _, _ = r.paneherd("status")
	pid := daemonPID(t, r)
	syscall.Kill(pid, syscall.SIGKILL)
	// The hooks may revive it at once (client-detached): wait for this one only.
	r.waitFor("the daemon is gone", 15*time.Second, func() bool { return !running(pid) })

	r.source(pluginConf(pluginDir, ""))
	r.source(pluginConf(pluginDir, ""))
	r.waitFor("the plugin scripts finish", 20*time.Second, func() bool { return !pluginsRunning(pluginDir) })
	// A daemon that lost the race to the lock exits at once; give it that moment.
	r.waitFor("exactly one daemon after a crash and two loads", 15*time.Second, func() bool { return r.daemons() == 1 })
	if _, errs, code := r.paneherd("status"); code != 0 {
		t.Errorf("status after the replacement daemon started: exit %d %s", code, errs)
	}
	out, errs, code := r.paneherd("restart")
	if code != 0 || !strings.Contains(out, "running (pid") {
		t.Errorf("restart: exit %d, %q %q", code, out, errs)
	}
	if n := r.daemons(); n != 1 || daemonPID(t, r) == pid {
		t.Errorf("after restart: %d daemons", n)
	}
}

// running reports whether process pid runs (a zombie does not).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && len(b) > 0
}

// daemonPID finds the pid of the rig's daemon.
func daemonPID(t *testing.T, r *rig) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) >= 4 && args[2] == r.tmux.Server.Socket && args[3] == "watch" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	t.Fatal("no daemon process found")
	return 0
}

// TestPluginRespectsUserSettings: the user's own key, length and hooks stay; a typo in an
// option is reported and falls back to the default; keys moved elsewhere are unbound.
func TestPluginRespectsUserSettings(t *testing.T) {
	r, _ := newPluginRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.tmux.Run("bind-key", "a", "send-prefix")
	r.tmux.Run("set-option", "-g", "status-right-length", "55")
	r.tmux.Run("set-option", "-g", "status-right", "#{paneherd_status}")
	r.tmux.Run("set-option", "-g", "@paneherd-status-mode", "Job")
	out, errs, code := r.paneherd("plugin", "apply", "--no-daemon")
	if code != 0 {
		t.Fatalf("plugin apply: exit %d %s", code, errs)
	}
	for _, want := range []string{"prefix a is already bound (send-prefix)", `@paneherd-status-mode "Job" is not one of push, job; using "push"`} {
		if !strings.Contains(out, want) {
			t.Errorf("plugin apply said %q; want %q", out, want)
		}
	}
	keys := r.tmux.Run("list-keys", "-T", "prefix")
	if !regexpMatch(`prefix\s+a\s+send-prefix`, keys) {
		t.Errorf("the user's prefix a binding was replaced:\n%s", keys)
	}
	if got := r.option("status-right-length"); got != "55" {
		t.Errorf("status-right-length = %q, want the user's 55", got)
	}
	if got := r.option("status-right"); !pushSegment(got) {
		t.Errorf("status-right = %q, want push mode after the typo", got)
	}

	r.tmux.Run("set-option", "-g", "@paneherd-key-next", "N")
	if _, errs, code := r.paneherd("plugin", "apply", "--no-daemon"); code != 0 {
		t.Fatalf("plugin apply: %s", errs)
	}
	keys = r.tmux.Run("list-keys", "-T", "prefix")
	if !regexpMatch(`prefix\s+N\s+run-shell -b .*jump`, keys) || regexpMatch(`prefix\s+A\s+`, keys) {
		t.Errorf("moving key-next from A to N: bindings\n%s", keys)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// TestKeysSendAndApprove drives the send and approve keys from a real client.
func TestKeysSendAndApprove(t *testing.T) {
	r, pluginDir := newPluginRig(t)
	rec, reads := r.recorderPane(t, "", "rec")
	dialog, dialogReads := r.recorderPane(t, "work", "dialog", "-screen", shellQuote(fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")))
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	r.tmux.Run("set-option", "-p", "-t", dialog, "@paneherd-pack", "claude")
	r.tmux.Run("select-window", "-t", rec)
	r.source(pluginConf(pluginDir, ""))
	r.waitFor("both panes are read", 30*time.Second, func() bool {
		s := r.option("@paneherd_status")
		return strings.Contains(s, "[rec: READY]") && strings.Contains(s, "[dialog: NEEDS_CONFIRMATION]")
	})
	attachViewer(t, r, "work")

	// prefix S, a prompt with characters the shell and tmux would both like to read, Enter.
	r.viewer.Run("send-keys", "-t", "view", "C-b", "S")
	r.waitFor("the prompt opens", 15*time.Second, func() bool {
		screen, _ := r.viewer.Server.Run(context.Background(), nil, "capture-pane", "-p", "-t", "view")
		return strings.Contains(screen, "send to ")
	})
	typed := `say "hi"; $HOME #{pane_id} 'q'`
	r.viewer.Run("send-keys", "-t", "view", "-l", typed)
	r.viewer.Run("send-keys", "-t", "view", "Enter")
	r.waitFor("the typed prompt arrives as one paste, then Enter", 30*time.Second, func() bool {
		return strings.Join(reads(), "|") == "\x1b[200~"+typed+"\x1b[201~|\r"
	})

	// prefix Y in a pane without a dialog approves the pane waiting longest.
	r.viewer.Run("send-keys", "-t", "view", "C-b", "Y")
	r.waitFor("prefix Y answers the waiting dialog with its key", 30*time.Second, func() bool {
		return strings.Join(dialogReads(), "") == "1"
	})
}
