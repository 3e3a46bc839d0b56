package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/paths"
)

// fixturePane is a pane that shows one captured screen.
type fixturePane struct {
	file string
	pack string // forced with @paneherd-pack; "" = detected
	want []string
}

func TestWatchClassifiesRealScreens(t *testing.T) {
	r := newRig(t)
	cases := []fixturePane{
		{"claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.ansi", "", []string{"NEEDS_CONFIRMATION"}},
		{"claude/06-READY-after-short-answer.txt", "", []string{"READY"}},
		{"claude/07-BUSY-streaming-answer.ansi", "claude", []string{"BUSY"}},
		{"claude/20-ERROR-invalid-api-key-after-retries.txt", "claude", []string{"ERROR"}},
		{"codex/06-NEEDS_CONFIRMATION-run-command-approval.txt", "", []string{"NEEDS_CONFIRMATION"}},
		{"codex/08-BUSY-running-command.ansi", "codex", []string{"BUSY"}},
		{"codex/14-ERROR-http-500-high-demand.txt", "codex", []string{"ERROR"}},
		{"codex/07-READY-after-approved-command.ansi", "", []string{"READY"}},
		{"gemini/14-BUSY-thinking-spinner-while-retrying-500.txt", "", []string{"BUSY"}},
		{"gemini/01-NEEDS_CONFIRMATION-trust-folder-dialog.ansi", "gemini", []string{"NEEDS_CONFIRMATION"}},
		{"gemini/16-ERROR-api-error-401.txt", "gemini", []string{"ERROR"}},
		{"gemini/07-READY-after-tool-run.txt", "", []string{"READY"}},
		{"bash/07-NEEDS_CONFIRMATION-read-p-continue-yN.txt", "shell", []string{"NEEDS_CONFIRMATION"}},
		{"bash/06-ERROR-python-traceback.ansi", "shell", []string{"ERROR"}},
		{"bash/01-EXITED-idle-shell-prompt-after-ls.txt", "shell", []string{"READY", "ERROR"}},
	}
	ids := map[string]fixturePane{}
	for i, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c.file), filepath.Ext(c.file))[:2] + "-" + strings.Split(c.file, "/")[0]
		var id string
		if i == 0 {
			id = r.tmux.NewSession("fx", showCommand(fixture(t, c.file)))
			r.tmux.Run("rename-window", "-t", id, name)
		} else {
			id = r.tmux.NewWindow("fx", name, showCommand(fixture(t, c.file)))
		}
		if c.pack != "" {
			r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", c.pack)
		}
		ids[id] = c
	}
	r.start()
	r.waitFor("every fixture pane shows its true state", 20*time.Second, func() bool {
		st := r.status()
		for id, c := range ids {
			if !contains(c.want, st[id].State) {
				return false
			}
		}
		return true
	})
	st := r.status()
	for id, c := range ids {
		p := st[id]
		wantPack := c.pack
		if wantPack == "" {
			wantPack = strings.Split(c.file, "/")[0]
		}
		if p.Pack != wantPack {
			t.Errorf("%s (%s): pack %q, want %q", c.file, id, p.Pack, wantPack)
		}
		if p.Since.IsZero() || p.PID == 0 || p.Session != "fx" || p.Command != "sleep" || p.Rule == "" {
			t.Errorf("%s: incomplete record %+v", c.file, p)
		}
	}
	checkJSONShape(t, r)
	short, _, code := r.paneherd("status", "--short")
	if code != 0 || !strings.Contains(short, "[10-claude: NEEDS_CONFIRMATION]") || strings.Count(short, "#[default]") != len(cases) {
		t.Errorf("status --short = %q (exit %d)", short, code)
	}
	table, _, _ := r.paneherd("status")
	if !strings.HasPrefix(table, "NAME") || !strings.Contains(table, "fx:") {
		t.Errorf("status table:\n%s", table)
	}
}

func TestWatchFollowsPanes(t *testing.T) {
	r := newRig(t)
	busy := r.tmux.NewSession("work", showCommand(fixture(t, "claude/16-BUSY-thinking-before-first-token.txt")))
	r.tmux.Run("set-option", "-p", "-t", busy, "@paneherd-name", "worker-a")
	r.tmux.Run("set-option", "-p", "-t", busy, "@paneherd-pack", "claude")
	r.tmux.Run("rename-window", "-t", busy, "work")
	// The polling observer, the fallback when control mode cannot attach, end to end.
	r.setOptions("observer", "poll")
	r.start()
	r.waitFor("the busy pane shows BUSY", 30*time.Second, func() bool { return r.status()[busy].State == "BUSY" })

	// The same pane finishes its turn: the screen changes to an idle prompt and holds still.
	r.tmux.Run("respawn-pane", "-k", "-t", busy, showCommand(fixture(t, "claude/09-READY-after-long-answer.txt")))
	r.waitFor("the finished pane shows READY", 30*time.Second, func() bool { return r.status()[busy].State == "READY" })
	if got := r.status()[busy].Name; got != "worker-a" {
		t.Errorf("name = %q, want the @paneherd-name worker-a", got)
	}

	split := r.tmux.Split(busy, showCommand(fixture(t, "bash/11-NEEDS_CONFIRMATION-ssh-keygen-passphrase-prompt.txt")))
	r.tmux.Run("set-option", "-p", "-t", split, "@paneherd-pack", "shell")
	r.waitFor("a new pane appears", 30*time.Second, func() bool { return r.status()[split].State == "NEEDS_CONFIRMATION" })
	if got, want := r.status()[split].Name, "work.1"; got != want {
		t.Errorf("split pane name = %q, want %q (window name plus pane index)", got, want)
	}

	r.tmux.Run("kill-pane", "-t", split)
	r.waitFor("a killed pane disappears", 30*time.Second, func() bool { _, ok := r.status()[split]; return !ok })

	dying := r.tmux.NewWindow("work", "dying", "exec sleep 100000")
	r.tmux.Run("set-option", "-p", "-t", dying, "remain-on-exit", "on")
	r.waitFor("the new window is watched", 30*time.Second, func() bool { _, ok := r.status()[dying]; return ok })
	r.tmux.Run("respawn-pane", "-k", "-t", dying, "exit 3")
	r.waitFor("a dead pane shows OFFLINE", 30*time.Second, func() bool {
		p := r.status()[dying]
		return p.State == "OFFLINE"
	})
	// tmux sets pane_dead before pane_dead_status, and sometimes never sets the status.
	if s := r.status()[dying].Summary; !strings.Contains(s, "exited") {
		t.Errorf("dead pane summary = %q", s)
	}
}

func TestDaemonLifecycle(t *testing.T) {
	r := newRig(t)
	r.tmux.NewSession("one", "exec sleep 100000")

	out, errs, code := r.paneherd("status")
	if code != 1 || !strings.Contains(errs, "no paneherd daemon") || out != "" {
		t.Errorf("status with no daemon: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	short, _, code := r.paneherd("status", "--short")
	if code != 1 || strings.TrimSpace(short) != "[paneherd: off]" {
		t.Errorf("status --short with no daemon: exit %d, %q", code, short)
	}

	r.start()
	_, errs, code = r.paneherd("watch")
	if code != 1 || !strings.Contains(errs, "already running") {
		t.Errorf("second daemon: exit %d, stderr %q", code, errs)
	}

	// SIGINT (Ctrl-C in the terminal running it) is a clean shutdown too.
	r.daemon.Process.Signal(os.Interrupt)
	if err := <-r.done; err != nil {
		t.Errorf("daemon exit after SIGINT: %v; stderr %s", err, r.stderr)
	}
	r.daemon = nil
	if _, _, code := r.paneherd("status"); code != 1 {
		t.Errorf("status after the daemon stopped: exit %d, want 1", code)
	}
	r.start()

	// The tmux server exits: the daemon's job is done and it exits 0.
	r.tmux.Run("kill-server")
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("daemon exit after the server went away: %v; stderr %s", err, r.stderr)
		}
	case <-time.After(10 * time.Second):
		r.dump()
		t.Fatal("daemon still running 10s after the tmux server exited")
	}
	r.daemon = nil
}

func TestRestartKeepsStateAndMovesCorruptDBAside(t *testing.T) {
	r := newRig(t)
	keep := r.tmux.NewSession("s", showCommand(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	gone := r.tmux.NewWindow("s", "gone", showCommand(fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")))
	r.start()
	r.waitFor("both panes are seen", 30*time.Second, func() bool {
		st := r.status()
		return st[keep].State == "NEEDS_CONFIRMATION" && st[gone].State == "NEEDS_CONFIRMATION"
	})
	since, rule := r.status()[keep].Since, r.status()[keep].Rule
	r.stop()

	r.tmux.Run("kill-pane", "-t", gone)
	r.start()
	st := r.status()
	if _, ok := st[gone]; ok {
		t.Errorf("a pane that vanished while the daemon was down is still listed: %+v", st[gone])
	}
	if !st[keep].Since.Equal(since) || st[keep].Rule != rule {
		t.Errorf("restart lost the state's start time or rule: %v %q, was %v %q", st[keep].Since, st[keep].Rule, since, rule)
	}
	r.stop()

	dir, err := paths.ForServer(r.tmux.Server.Socket, r.tmux.Server.Key(), func(k string) string {
		return map[string]string{"XDG_STATE_HOME": filepath.Join(r.home, "state")}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir.DB(), []byte("this is not a bbolt file, but it must not be lost"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.start()
	if !strings.Contains(r.stderr.String(), "corrupt") {
		t.Errorf("daemon did not say it moved the database aside; stderr: %s", r.stderr)
	}
	aside, _ := filepath.Glob(dir.DB() + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("moved-aside files: %v", aside)
	}
	if b, _ := os.ReadFile(aside[0]); !strings.Contains(string(b), "must not be lost") {
		t.Errorf("moved-aside file lost its bytes: %q", b)
	}
	r.waitFor("the fresh database works", 30*time.Second, func() bool { return r.status()[keep].State == "NEEDS_CONFIRMATION" })
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// checkJSONShape holds status --json to exactly the documented keys.
func checkJSONShape(t *testing.T, r *rig) {
	t.Helper()
	out, _, _ := r.paneherd("status", "--json")
	var raw struct{ Panes []map[string]any }
	if err := json.Unmarshal([]byte(out), &raw); err != nil || len(raw.Panes) == 0 {
		t.Fatalf("status --json: %v: %s", err, out)
	}
	want := []string{"command", "cwd", "host", "name", "pack", "pane_id", "pane_index", "pid", "rule", "session", "since", "state", "summary", "window", "window_index", "witness"}
	var got []string
	for k := range raw.Panes[0] {
		got = append(got, k)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("status --json keys = %v, want %v", got, want)
	}
}
