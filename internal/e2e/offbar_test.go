package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// oddPluginDir is a plugin directory named with what tmux formats, strftime and the
// shell each read: the status bar's job must still run the binary inside it.
const oddPluginDir = "odd, }dir 50% o'k$x"

// barConf loads the plugin from pluginDir with nothing else in the status line.
func barConf(pluginDir, extra string) string {
	return fmt.Sprintf(`set -g status-left ''
set -g window-status-format ''
set -g window-status-current-format ''
set -g status-right '#{paneherd_status}'
%s
run-shell %s
`, extra, tmux.Quote(tmux.ShellWord(filepath.Join(pluginDir, "paneherd.tmux"))))
}

// askerScript sits at a shell prompt until Enter, then asks a yes/no question.
const askerScript = `printf 'u@h:~$ '; read x; printf 'Continue? [y/N] '; read y; exec sleep 100000`

// TestBarAfterDaemonKilled: a daemon killed with SIGKILL is back within seconds, and the
// bar a person sees shows what the panes show now, not the states before the kill. With
// control mode, tmux's client-detached hook notices at once; with polling there is no
// client, and the bar's job notices after the daemon's lease ends.
func TestBarAfterDaemonKilled(t *testing.T) {
	for _, observer := range []string{"control", "poll"} {
		t.Run(observer, func(t *testing.T) {
			r, pluginDir := newPluginRigIn(t, oddPluginDir)
			asker := r.tmux.NewSession("main", askerScript)
			r.tmux.Run("rename-window", "-t", asker, "asker")
			r.tmux.Run("set-option", "-p", "-t", asker, "@paneherd-pack", "shell")
			r.source(barConf(pluginDir, "set -g @paneherd-observer "+observer))
			bar := statusBar(t, r, "main")
			r.waitFor("the bar shows the prompt READY", 15*time.Second, func() bool {
				return strings.Contains(bar(), "[asker: READY]")
			})
			r.waitFor("the plugin scripts finish", 20*time.Second, func() bool { return !pluginsRunning(pluginDir) })
			if got := r.option("status-interval"); got != "5" {
				t.Errorf("status-interval = %q, want tmux's 15 lowered to 5", got)
			}
			pid := daemonPID(t, r)
			syscall.Kill(pid, syscall.SIGKILL)
			killed := time.Now()
			r.tmux.Run("send-keys", "-t", asker, "Enter")
			r.waitFor("the bar shows the question the pane asks now", 20*time.Second, func() bool {
				return strings.Contains(bar(), "[asker: NEEDS_CONFIRMATION]")
			})
			t.Logf("fresh state in the bar %v after SIGKILL", time.Since(killed).Round(time.Millisecond))
			// Several bars and hooks may revive it at once; the daemons that lose the race
			// for the lock exit at once.
			r.waitFor("exactly one daemon, a new one", 5*time.Second, func() bool {
				return r.daemons() == 1 && daemonPID(t, r) != pid
			})
		})
	}
}

// TestBarAfterStop: paneherd stop is on purpose: the bar says off, neither the bar's job
// nor a hook starts the daemon again, and paneherd start does.
func TestBarAfterStop(t *testing.T) {
	for _, mode := range []string{"push", "job"} {
		t.Run(mode, func(t *testing.T) {
			r, pluginDir := newPluginRigIn(t, oddPluginDir)
			id := r.tmux.NewSession("main", "exec sleep 100000")
			r.tmux.Run("rename-window", "-t", id, "worker")
			r.source(barConf(pluginDir, "set -g @paneherd-status-mode "+mode))
			bar := statusBar(t, r, "main")
			r.waitFor("the bar shows the worker", 15*time.Second, func() bool {
				return strings.Contains(bar(), "[worker: ")
			})
			// Loading the plugin starts the daemon: let it finish before stopping.
			r.waitFor("the plugin scripts finish", 20*time.Second, func() bool { return !pluginsRunning(pluginDir) })
			stopped := time.Now()
			if out, errs, code := r.paneherd("stop"); code != 0 {
				t.Fatalf("stop: exit %d %s%s", code, out, errs)
			}
			r.waitFor("the bar says paneherd is off", 15*time.Second, func() bool {
				line := bar()
				return strings.Contains(line, "[paneherd: off]") && !strings.Contains(line, "[worker: ")
			})
			t.Logf("off in the bar %v after stop", time.Since(stopped).Round(time.Millisecond))

			// What the bar's job and the hooks run, run here to the end.
			if out, _, _ := r.paneherd("bar"); out != "0\n" {
				t.Errorf("bar after stop printed %q, want 0", out)
			}
			if out, _, _ := r.paneherd("bar", "--badges"); out != "[paneherd: off]\n" {
				t.Errorf("bar --badges after stop printed %q", out)
			}
			r.paneherd("hook", "client-detached")
			if n := r.daemons(); n != 0 {
				t.Fatalf("%d daemons after stop: revived", n)
			}

			if out, errs, code := r.paneherd("start"); code != 0 {
				t.Fatalf("start: exit %d %s%s", code, out, errs)
			}
			r.waitFor("the bar shows the worker again", 15*time.Second, func() bool {
				line := bar()
				return strings.Contains(line, "[worker: ") && !strings.Contains(line, "[paneherd: off]")
			})
		})
	}
}
