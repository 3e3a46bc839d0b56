package deliver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// A person's modes: copy mode, and view mode, which tmux 3.3a enters to show the output
// of run-shell (and of any command with output run from a key binding), also over a
// copy mode already there.
var modes = []struct {
	name, mode string
	enter      [][]string
}{
	{"copy-mode", "copy-mode", [][]string{{"copy-mode"}}},
	{"view-mode", "view-mode", [][]string{{"run-shell", "echo output of run-shell"}}},
	{"view-over-copy", "view-mode", [][]string{{"copy-mode"}, {"run-shell", "echo output of run-shell"}}},
}

const prompt = "user@host:~$"

// modeRig is a bash at a prompt in a private tmux server, a person's client attached to
// it (a copy-mode key that opens a prompt only waits with a client to show it on), and an
// engine that sees the pane READY.
type modeRig struct {
	t            *testing.T
	tmux, viewer *tmuxtest.Handle
	// look reaches the server through a control-mode client, as the daemon's engine
	// does: no tmux process per command, so each of the many tries costs less. The
	// engine's guarded keys still go by a process (tmux.runsOthers), as in the daemon.
	look   tmux.Server
	pane   string
	engine *Engine
}

// newModeRig runs script ("" for none: an interactive bash) with copy mode's keys
// modeKeys, and pack reading the pane.
func newModeRig(t *testing.T, modeKeys, script string, pack *packs.Pack) *modeRig {
	t.Helper()
	h := tmuxtest.New(t)
	h.Run("set-option", "-g", "mode-keys", modeKeys)
	shell := fmt.Sprintf("env -i TERM=xterm-256color HOME=%s PS1='%s ' bash --norc --noprofile", h.Dir, prompt)
	if script != "" {
		path := filepath.Join(h.Dir, "script.sh")
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		shell += " " + path
	}
	r := &modeRig{t: t, tmux: h, pane: h.NewSession("work", shell)}
	r.viewer = attachPerson(t, h)
	r.look = viaControl(t, h) // after the person's client: attachPerson waits for a client
	r.engine = New(r.look, Config{Recheck: 10 * time.Millisecond, DeferMax: time.Second,
		AckTimeout: 5 * time.Second, Verify: 3 * time.Second, RateLimit: 1 << 20, RateWindow: time.Minute})
	r.engine.Lookup = func(id string) (Pane, bool) {
		return Pane{ID: r.pane, Name: "worker", State: state.Ready, Pack: pack}, id == r.pane
	}
	return r
}

// attachPerson attaches a client to the session "work" from a pane of a second server,
// which it returns: its pane "view" shows what the person sees.
func attachPerson(t *testing.T, h *tmuxtest.Handle) *tmuxtest.Handle {
	t.Helper()
	viewer := tmuxtest.New(t)
	viewer.Run("new-session", "-d", "-s", "view", "-x", "120", "-y", "40",
		fmt.Sprintf("TMUX= exec tmux -S '%s' attach -t work", h.Server.Socket))
	tmuxtest.WaitFor(t, 30*time.Second, func() bool { return h.Run("list-clients", "-F", "x") != "" })
	return viewer
}

// viaControl returns h's server reached through a control-mode client, the way the
// daemon reaches its own.
func viaControl(t *testing.T, h *tmuxtest.Handle) tmux.Server {
	t.Helper()
	c, err := observe.StartControlMode(h.Server)
	if err != nil {
		t.Fatalf("control mode: %v", err)
	}
	t.Cleanup(c.Close)
	s := h.Server
	s.Via = c
	return s
}

// run runs a tmux command through look; any error fails the test.
func (r *modeRig) run(args ...string) string {
	r.t.Helper()
	out, err := r.look.Run(context.Background(), nil, args...)
	if err != nil {
		r.t.Fatalf("tmux %v: %v", args, err)
	}
	return strings.TrimSuffix(out, "\n")
}

func shellPack(t *testing.T) *packs.Pack {
	t.Helper()
	p, err := packs.Load("").Get("shell")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (r *modeRig) lastLine() string {
	lines := strings.Split(strings.TrimRight(r.run("capture-pane", "-p", "-t", r.pane), "\n"), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

func (r *modeRig) waitLastLine(want string) {
	r.t.Helper()
	if !tmuxtest.Poll(10*time.Second, func() bool { return r.lastLine() == want }) {
		r.t.Fatalf("the pane's last line is %q, want %q", r.lastLine(), want)
	}
}

// enter puts the pane into a mode.
func (r *modeRig) enter(cmds [][]string) error {
	for _, c := range cmds {
		if _, err := r.look.Run(context.Background(), nil, append([]string{c[0], "-t", r.pane}, c[1:]...)...); err != nil {
			return err
		}
	}
	return nil
}

// enterLater puts the pane into a mode after delay, as a person (or a run-shell) would
// while an action is under way; the channel says how it went.
func (r *modeRig) enterLater(delay time.Duration, cmds [][]string) <-chan error {
	done := make(chan error, 1)
	go func() {
		time.Sleep(delay)
		done <- r.enter(cmds)
	}()
	return done
}

func (r *modeRig) mode() string {
	return r.run("display-message", "-p", "-t", r.pane, "#{pane_mode}")
}

// leaveMode ends the pane's modes, if any, as the person pressing q would.
func (r *modeRig) leaveMode() {
	r.t.Helper()
	for r.mode() != "" {
		r.run("send-keys", "-t", r.pane, "-X", "cancel")
	}
}

// plainSendKeys types at the pane the way a person's script does, bounded: with the pane
// in a mode, "g" would open copy mode's goto-line prompt and tmux 3.3a's send-keys would
// wait for the person to dismiss it.
func (r *modeRig) plainSendKeys() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.tmux.Server.Run(ctx, nil, "send-keys", "-t", r.pane, "git status"); err != nil {
		r.t.Fatalf("a plain send-keys after paneherd: %v", err)
	}
	r.waitLastLine(prompt + " git status")
	r.run("send-keys", "-t", r.pane, "C-u")
	r.waitLastLine(prompt)
}

func (r *modeRig) buffers() string {
	return r.run("list-buffers", "-F", "#{buffer_name}")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestSendRefusesAPaneInAMode: a pane in copy or view mode is refused every time, and
// nothing reaches the program or stays behind.
func TestSendRefusesAPaneInAMode(t *testing.T) {
	r := newModeRig(t, "emacs", "", shellPack(t))
	r.waitLastLine(prompt)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			for i := range 100 {
				if err := r.enter(m.enter); err != nil {
					t.Fatal(err)
				}
				res := r.engine.Send(context.Background(), wire.SendRequest{ID: fmt.Sprintf("t%d", i), PaneID: r.pane, Text: "echo hello"})
				if res.Outcome != outcome.OperatorBusy || !strings.Contains(res.Detail, m.mode) {
					t.Fatalf("try %d: %s %s; want OPERATOR_BUSY naming %s", i, res.Outcome, res.Detail, m.mode)
				}
				if got := r.mode(); got != m.mode {
					t.Fatalf("try %d: the pane is in %q after the refusal, want %s", i, got, m.mode)
				}
				r.leaveMode()
				if r.lastLine() != prompt || r.buffers() != "" {
					t.Fatalf("try %d: a refused send left %q at the prompt, buffers %q", i, r.lastLine(), r.buffers())
				}
			}
			r.plainSendKeys()
		})
	}
}

// TestSendRacingAMode enters copy or view mode while sends are under way, sweeping the
// moment across the whole send: the checks, the paste, the pause, the Enter. A send is
// DELIVERED only if the command ran, is otherwise OPERATOR_BUSY and ran nothing, and
// leaves no buffer and no pane a plain send-keys would hang on.
func TestSendRacingAMode(t *testing.T) {
	r := newModeRig(t, "emacs", "", shellPack(t))
	r.waitLastLine(prompt)
	// The moment sweeps the length of a whole send, as long as one takes on this machine.
	start := time.Now()
	if res := r.engine.Send(context.Background(), wire.SendRequest{ID: "t", PaneID: r.pane, Text: "true"}); res.Outcome != outcome.Delivered {
		t.Fatalf("a send to an idle shell: %s %s", res.Outcome, res.Detail)
	}
	span := time.Since(start)
	r.waitLastLine(prompt)
	tally := map[string]int{}
	for i := range 100 {
		m := modes[i%len(modes)]
		delay := span * time.Duration(i) / 60
		mark := filepath.Join(r.tmux.Dir, fmt.Sprintf("ran-%d", i))
		entered := r.enterLater(delay, m.enter)
		res := r.engine.Send(context.Background(), wire.SendRequest{ID: fmt.Sprintf("t%d", i), PaneID: r.pane, Text: "touch " + mark})
		if err := <-entered; err != nil {
			t.Fatalf("try %d: enter %s: %v", i, m.name, err)
		}
		switch res.Outcome {
		case outcome.Delivered:
			if !tmuxtest.Poll(5*time.Second, func() bool { return exists(mark) }) {
				tally["DELIVERED, not run"]++
				t.Errorf("try %d (%s after %v): DELIVERED, but the command did not run; the pane shows %q in %q",
					i, m.name, delay, r.lastLine(), r.mode())
				break
			}
			tally["DELIVERED, ran"]++
		case outcome.OperatorBusy:
			if strings.Contains(res.Detail, "not submitted") {
				tally["OPERATOR_BUSY, pasted"]++
			} else {
				tally["OPERATOR_BUSY"]++
			}
		default:
			tally[string(res.Outcome)]++
			t.Errorf("try %d (%s after %v): %s %s", i, m.name, delay, res.Outcome, res.Detail)
		}
		if b := r.buffers(); b != "" {
			t.Errorf("try %d: buffers left: %q", i, b)
		}
		r.leaveMode()
		r.run("send-keys", "-t", r.pane, "C-u")
		r.waitLastLine(prompt)
		if res.Outcome != outcome.Delivered && exists(mark) {
			t.Errorf("try %d (%s after %v): %s, but the command ran", i, m.name, delay, res.Outcome)
		}
		r.plainSendKeys()
	}
	t.Logf("100 sends racing a mode, entered 0 to %v in: %v", span*99/60, tally)
}

// TestPressRefusesWhatCheckRefuses: the guard's own look refuses what check does, and
// the key goes nowhere.
func TestPressRefusesWhatCheckRefuses(t *testing.T) {
	r := newModeRig(t, "emacs", "", shellPack(t))
	r.waitLastLine(prompt)
	h := r.tmux
	h.Run("set-option", "-g", "remain-on-exit", "on")
	dead := h.NewWindow("work", "dead", "true")
	tmuxtest.WaitFor(t, 30*time.Second, func() bool { return h.Run("display-message", "-p", "-t", dead, "#{pane_dead}") == "1" })
	for _, tc := range []struct {
		name       string
		pane       string
		set, unset []string
		want       outcome.Outcome
	}{
		{"copy mode", r.pane, []string{"copy-mode", "-t", r.pane}, []string{"send-keys", "-t", r.pane, "-X", "cancel"}, outcome.OperatorBusy},
		{"input off", r.pane, []string{"select-pane", "-d", "-t", r.pane}, []string{"select-pane", "-e", "-t", r.pane}, outcome.SendKeysError},
		{"synchronized", r.pane, []string{"set-option", "-w", "-t", r.pane, "synchronize-panes", "on"},
			[]string{"set-option", "-w", "-t", r.pane, "synchronize-panes", "off"}, outcome.SendKeysError},
		{"dead", dead, nil, nil, outcome.PaneDead},
		{"gone", "%99", nil, nil, outcome.TargetNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set != nil {
				h.Run(tc.set...)
				defer h.Run(tc.unset...)
			}
			if bad := r.engine.press(context.Background(), tc.pane, []string{"-l", "x"}); bad == nil || bad.Outcome != tc.want {
				t.Errorf("press = %+v, want %s", bad, tc.want)
			}
			if got := r.lastLine(); got != prompt {
				t.Errorf("a refused press put %q at the prompt", got)
			}
		})
	}
}

// TestAckWaitsForTheCommandToRun: a prompt pasted at a shell and not yet submitted is a
// draft at the prompt, not a command running: no acknowledgement.
func TestAckWaitsForTheCommandToRun(t *testing.T) {
	r := newModeRig(t, "emacs", "", shellPack(t))
	r.waitLastLine(prompt)
	before := r.tmux.Run("capture-pane", "-p", "-e", "-t", r.pane)
	r.tmux.Run("send-keys", "-t", r.pane, "-l", "echo pending")
	r.waitLastLine(prompt + " echo pending")
	p, _ := r.engine.Lookup(r.pane)
	if acked, pending := r.engine.awaitAck(context.Background(), p, before, "echo pending", ackMark{}, time.Second); acked || !pending {
		t.Errorf("awaitAck = acked %v, pending %v; want the unsubmitted prompt pending, not acknowledged", acked, pending)
	}
}

// A dialog answered with "1" or "2", as Claude's and Gemini's are: with vi keys, both
// open copy mode's "(repeat)" prompt.
const dialogPack = `
description = "a numbered question"
[[rules]]
name = "question"
state = "NEEDS_CONFIRMATION"
choices = ["approve", "deny"]
region = "last:1"
match = '^Continue \d+\? \[1/2\]$'
[actions]
approve = ["1"]
deny = ["2"]
`

// TestAnswerRacingAMode enters a mode while approvals are under way: the key goes to the
// dialog (ANSWERED) or nowhere (OPERATOR_BUSY), never to the mode, where "1" would open a
// prompt on the person's screen and keep paneherd waiting until they dismissed it.
func TestAnswerRacingAMode(t *testing.T) {
	pack, err := packs.Parse("numbered", "test", []byte(dialogPack))
	if err != nil {
		t.Fatal(err)
	}
	r := newModeRig(t, "vi", `i=0; while :; do i=$((i+1)); read -r -n1 -p "Continue $i? [1/2] " a; echo; echo "answer $i: $a"; done`, pack)
	r.engine.Lookup = func(id string) (Pane, bool) { // the watcher reads the question as a dialog
		return Pane{ID: r.pane, Name: "worker", State: state.NeedsConfirmation, Pack: pack}, id == r.pane
	}
	question := func(n int) string { return fmt.Sprintf("Continue %d? [1/2]", n) }
	r.waitLastLine(question(1))
	approve := func(i int) wire.Result {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return r.engine.Answer(ctx, wire.AnswerRequest{ID: fmt.Sprintf("a%d", i), PaneID: r.pane, Choice: packs.ChoiceApprove})
	}
	start := time.Now()
	if res := approve(0); res.Outcome != outcome.Answered {
		t.Fatalf("approving an idle dialog: %s %s", res.Outcome, res.Detail)
	}
	span := time.Since(start)
	n := 2
	r.waitLastLine(question(n))
	tally := map[string]int{}
	for i := 1; i <= 60; i++ {
		m := modes[i%len(modes)]
		delay := span * time.Duration(i) / 45
		entered := r.enterLater(delay, m.enter)
		res := approve(i)
		if err := <-entered; err != nil {
			t.Fatalf("try %d: enter %s: %v", i, m.name, err)
		}
		tally[string(res.Outcome)]++
		if strings.Contains(r.viewer.Run("capture-pane", "-p", "-t", "view"), "(repeat)") {
			t.Fatalf("try %d (%s after %v): %s %s, and the person's screen shows copy mode's (repeat) prompt", i, m.name, delay, res.Outcome, res.Detail)
		}
		r.leaveMode()
		switch res.Outcome {
		case outcome.Answered:
			n++
			r.waitLastLine(question(n))
		case outcome.OperatorBusy:
			if got := r.lastLine(); got != question(n) {
				t.Errorf("try %d (%s after %v): refused, but the question reads %q", i, m.name, delay, got)
			}
		default:
			t.Fatalf("try %d (%s after %v): %s %s", i, m.name, delay, res.Outcome, res.Detail)
		}
	}
	t.Logf("60 approvals racing a mode, entered 0 to %v in: %v", span*60/45, tally)
}
