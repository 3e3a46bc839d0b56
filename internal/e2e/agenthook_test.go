package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/watcher"
)

// agentPayload is a payload a real CLI sent its hook (hooks/testdata/agents).
func agentPayload(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "hooks", "testdata", "agents", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// A Claude pane shows a READY screen; inside it, Claude's permission Notification hook
// runs `paneherd hook agent claude Notification` with the real payload on stdin. status
// shows NEEDS_CONFIRMATION at once, by the hook's word; the screen, which never shows a
// dialog, takes the state back after tracker.Fresh.
func TestAgentHookMovesStateThenScreenWins(t *testing.T) {
	r := newRig(t)
	trigger := filepath.Join(r.home, "run-hook")
	hookOut := filepath.Join(r.home, "hook-output")
	// The pane draws the screen, waits for the test's signal, then runs the hook as the
	// agent would: in the pane, so $TMUX and $TMUX_PANE come from tmux.
	cmd := strings.TrimSuffix(showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")), "; exec sleep 100000") +
		"; while [ ! -e " + shellQuote(trigger) + " ]; do sleep 0.02; done; " +
		shellQuote(binary) + " hook agent claude Notification < " + shellQuote(agentPayload(t, "claude-Notification-permission_prompt.json")) +
		" > " + shellQuote(hookOut) + " 2>&1; echo $? >> " + shellQuote(hookOut) + "; exec sleep 100000"
	id := r.tmux.NewSession("agent", cmd)
	// The pane's process is the shell waiting to run the hook: say which pack reads it.
	r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", "claude")
	r.start()
	r.waitFor("the pane is READY by its screen", 20*time.Second, func() bool {
		p := r.status()[id]
		return p.State == "READY" && p.Witness == tracker.WitnessScreen
	})

	start := time.Now()
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the hook's NEEDS_CONFIRMATION shows", 10*time.Second, func() bool {
		p := r.status()[id]
		return p.State == "NEEDS_CONFIRMATION" && p.Witness == tracker.WitnessHook
	})
	shown := time.Since(start)
	t.Logf("hook in the pane -> status --json shows it: %v (includes the pane's 20 ms poll and status runs)", shown)
	p := r.status()[id]
	if p.Rule != "hook:claude:Notification" || p.Summary != "Claude needs your permission" {
		t.Errorf("rule %q summary %q", p.Rule, p.Summary)
	}
	// The daemon can show the event before the hook's process has exited and the pane's
	// shell written its status.
	r.waitFor("the hook exits", 10*time.Second, func() bool {
		b, _ := os.ReadFile(hookOut)
		return strings.HasSuffix(string(b), "\n")
	})
	if b, _ := os.ReadFile(hookOut); string(b) != "0\n" {
		t.Errorf("the hook printed or failed: %q", b)
	}

	r.waitFor("the screen takes the state back", tracker.Fresh+15*time.Second, func() bool {
		p := r.status()[id]
		return p.State == "READY" && p.Witness == tracker.WitnessScreen
	})
	if back := time.Since(start); back < tracker.Fresh {
		t.Errorf("the screen won after %v, before the freshness window (%v)", back, tracker.Fresh)
	}
}

// slowClaude installs a user pack "slowclaude": the claude pack whose READY screens must
// hold still a minute, so a READY sooner than that can only come from a turn's end.
func slowClaude(t *testing.T, r *rig) string {
	t.Helper()
	builtin, err := os.ReadFile(filepath.Join("..", "..", "packs", "builtin", "claude.toml"))
	if err != nil {
		t.Fatal(err)
	}
	slow := strings.Replace(string(builtin), "\nsettle = \"1s\"\n", "\nsettle = \"60s\"\n", 1)
	slow = strings.ReplaceAll(slow, "\nsettle = \"250ms\"\n", "\nsettle = \"60s\"\n")
	if slow == string(builtin) {
		t.Fatal("the claude pack's settle line moved: update this test")
	}
	packDir := filepath.Join(r.home, "config", "paneherd", "packs")
	if err := os.MkdirAll(packDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(packDir, "slowclaude.toml"), []byte(slow), 0o600); err != nil {
		t.Fatal(err)
	}
	return "slowclaude"
}

// A Claude pane at work draws its idle prompt, and Claude's Stop hook runs: READY shows
// at once, by the hook's word, without the settle time (slowClaude); the screen confirms
// it once settled.
func TestTurnEndHookShowsReadyAtOnce(t *testing.T) {
	r := newRig(t)
	pack := slowClaude(t, r)
	trigger := filepath.Join(r.home, "turn-ends")
	show := func(rel string) string {
		return strings.TrimSuffix(showCommand(fixture(t, rel)), "; exec sleep 100000")
	}
	cmd := show("claude/07-BUSY-streaming-answer.txt") +
		"; while [ ! -e " + shellQuote(trigger) + " ]; do sleep 0.02; done; clear; " + show("claude/06-READY-after-short-answer.txt") +
		"; " + shellQuote(binary) + " hook agent claude Stop < " + shellQuote(agentPayload(t, "claude-Stop.json")) + "; exec sleep 100000"
	id := r.tmux.NewSession("agent", cmd)
	r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", pack)
	r.start()
	r.waitFor("the pane is BUSY by its screen", 20*time.Second, func() bool {
		p := r.status()[id]
		return p.State == "BUSY" && p.Witness == tracker.WitnessScreen
	})
	start := time.Now()
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r.waitFor("READY by the Stop hook, long before the screen settles", 20*time.Second, func() bool {
		p := r.status()[id]
		return p.State == "READY" && p.Witness == tracker.WitnessHook && p.Rule == "hook:claude:Stop"
	})
	t.Logf("idle prompt drawn and Stop run -> status --json shows READY: %v (the pack's settle: 60s)", time.Since(start))
}

// A dialog denied through paneherd ends the agent's turn: the idle prompt it draws then
// shows READY at once (witness answer), without the settle time (slowClaude).
func TestDeniedDialogShowsReadyAtOnce(t *testing.T) {
	r := newRig(t)
	pack := slowClaude(t, r)
	id, read := r.recorderPane(t, "", "agent", "-screen", shellQuote(fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")),
		"-after", shellQuote(fixture(t, "claude/06-READY-after-short-answer.txt")))
	r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", pack)
	r.start()
	r.waitState(id, "NEEDS_CONFIRMATION")
	start := time.Now()
	if out, errs, code := r.paneherd("deny", id); code != 0 {
		t.Fatalf("deny: exit %d: %s %s", code, out, errs)
	}
	r.waitFor("READY after the deny, long before the screen settles", 20*time.Second, func() bool {
		p := r.status()[id]
		return p.State == "READY" && p.Witness == tracker.WitnessAnswer && p.Rule == watcher.RuleDenied
	})
	t.Logf("deny -> status --json shows READY: %v (the pack's settle: 60s)", time.Since(start))
	if got := strings.Join(read(), ""); got != "\x1b" {
		t.Errorf("deny pressed %q, want Escape", got)
	}
}

// A hook that cannot be read stays silent and succeeds; the daemon logs one line saying
// what was wrong.
func TestAgentHookBadInputLogged(t *testing.T) {
	r := newRig(t)
	id := r.tmux.NewSession("agent", "exec sleep 100000")
	r.start()
	env := append(append([]string{}, r.env...), "TMUX_PANE="+id)
	out, errs, code := runBinary(t, []byte("this is not json"), env, "-S", r.tmux.Server.Socket, "hook", "agent", "claude", "Stop")
	if out != "" || errs != "" || code != 0 {
		t.Fatalf("bad payload: stdout %q stderr %q exit %d", out, errs, code)
	}
	// Inside tmux ($TMUX set, as tmux sets it) with $TMUX_PANE cleared: logged. (With
	// neither, the agent runs outside tmux and the hook says nothing at all.)
	inTmux := append(append([]string{}, r.env...), "TMUX="+r.tmux.Server.Socket+",1,0")
	out, errs, code = runBinary(t, []byte(`{"hook_event_name":"Stop"}`), inTmux, "-S", r.tmux.Server.Socket, "hook", "agent", "claude", "Stop")
	if out != "" || errs != "" || code != 0 {
		t.Fatalf("no $TMUX_PANE: stdout %q stderr %q exit %d", out, errs, code)
	}
	logs, _ := filepath.Glob(filepath.Join(r.home, "state", "paneherd", "*", "daemon.log"))
	if len(logs) != 1 {
		t.Fatalf("daemon logs: %v", logs)
	}
	r.waitFor("the daemon logs both problems", 10*time.Second, func() bool {
		b, _ := os.ReadFile(logs[0])
		return strings.Contains(string(b), "payload is not JSON") && strings.Contains(string(b), "$TMUX_PANE is not set")
	})
}
