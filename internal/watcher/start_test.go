package watcher

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
)

// frontStepper steps w with frames of one pane whose command and group in front change,
// as a shell's do when it starts a CLI, and returns the pane's record after each.
func frontStepper(t *testing.T, w *Watcher, id string) func(at time.Time, command string, group int, sc string) wire.Pane {
	return func(at time.Time, command string, group int, sc string) wire.Pane {
		t.Helper()
		pane := tmux.Pane{ID: id, Session: "s", Window: "w", WindowPanes: 1, PID: 10, Command: command}
		fg := proc.Foreground{PID: 10, Name: "bash", Own: 10, Group: group}
		err := w.Step(observe.Frame{At: at, Panes: []tmux.Pane{pane}, Screens: map[string]string{id: sc},
			Foreground: map[string]proc.Foreground{id: fg}})
		if err != nil {
			t.Fatal(err)
		}
		rec, _, _ := w.Pane(id)
		return rec
	}
}

// rows is a screen's rows, its trailing blank rows dropped.
func rows(sc string) []string { return strings.Split(strings.TrimRight(sc, "\n"), "\n") }

// screenOf is the last height rows, as a terminal of that height shows them once they
// scrolled.
func screenOf(rows []string, height int) string {
	return strings.Join(rows[max(0, len(rows)-height):], "\n")
}

// Claude Code killed at a permission dialog and started again below it (a real screen:
// the old dialog above, the command typed at the shell's prompt below, the new process
// yet to draw): the dialog is history, the new process is starting. What the new
// process draws below is read, a dialog of its own too, even one of the same text.
func TestAgentStartedBelowItsOldDialogIsNotThatDialog(t *testing.T) {
	b, err := os.ReadFile("testdata/claude-restarted-under-its-old-dialog.txt")
	if err != nil {
		t.Fatal(err)
	}
	restarted := rows(string(b)) // ends with "user@devbox:~/proj# claude"
	prompt := restarted[len(restarted)-1]
	atPrompt := append(append([]string{}, restarted[:len(restarted)-1]...), strings.TrimSuffix(prompt, "claude"))
	live := restarted[:len(restarted)-4] // the dialog, with Claude alive under it
	welcome := rows(readFixture(t, "claude/06-READY-after-short-answer.txt"))
	firstDraw := append(append(append([]string{}, restarted...), welcome[:11]...), welcome[19:24]...)
	dialog := rows(readFixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt"))
	newDialog := append(append([]string{}, restarted...), dialog[len(dialog)-12:]...)

	w := newWatcher(t)
	step := frontStepper(t, w, "%1")
	if rec := step(t0, "claude", 20, strings.Join(live, "\n")); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("Claude alive at its dialog: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
	step(t0.Add(time.Second), "bash", 10, strings.Join(atPrompt, "\n"))
	for _, s := range []int{2, 3, 5} {
		rec := step(t0.Add(time.Duration(s)*time.Second), "claude", 30, strings.Join(restarted, "\n"))
		if rec.State != string(state.Busy) || rec.Rule != tracker.RuleStarting || rec.Summary != "starting" {
			t.Fatalf("at %ds, Claude started again below the old dialog: %s %s %q, want BUSY %s", s, rec.State, rec.Rule, rec.Summary, tracker.RuleStarting)
		}
	}
	if rec := step(t0.Add(6*time.Second), "claude", 30, screenOf(firstDraw, 40)); rec.State == string(state.NeedsConfirmation) {
		t.Fatalf("the new Claude drew its box below the old dialog: %s %s", rec.State, rec.Rule)
	}
	if rec := step(t0.Add(9*time.Second), "claude", 30, screenOf(firstDraw, 40)); rec.State != string(state.Ready) {
		t.Fatalf("the new Claude at its empty box: %s %s, want READY", rec.State, rec.Rule)
	}

	w2 := newWatcher(t)
	step2 := frontStepper(t, w2, "%1")
	step2(t0, "claude", 20, strings.Join(live, "\n"))
	step2(t0.Add(time.Second), "bash", 10, strings.Join(atPrompt, "\n"))
	step2(t0.Add(2*time.Second), "claude", 30, strings.Join(restarted, "\n"))
	if rec := step2(t0.Add(3*time.Second), "claude", 30, screenOf(newDialog, 40)); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("the new Claude asks, below the old dialog, the same question: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
}

// An agent starting reads BUSY "starting" while its screen fits no rule yet, for
// startingFor, and no longer: started in a pane's shell, or in a pane new since the
// daemon's first look. A pane the first look finds is no start: nobody knows its age.
func TestAgentStartingIsBusy(t *testing.T) {
	shell := rows(readFixture(t, "bash/01-EXITED-idle-shell-prompt-after-ls.txt"))
	typed := strings.Join(append(shell[:len(shell)-1], shell[len(shell)-1]+"opencode"), "\n")
	blank := "\n\n"
	firstLook := map[string]func(w *Watcher, step func(time.Time, string, int, string) wire.Pane){
		"in a shell": func(_ *Watcher, step func(time.Time, string, int, string) wire.Pane) {
			step(t0, "bash", 10, strings.Join(shell, "\n"))
		},
		"in a new pane": func(w *Watcher, _ func(time.Time, string, int, string) wire.Pane) { w.Step(observe.Frame{At: t0}) },
	}
	for name, first := range firstLook {
		t.Run(name, func(t *testing.T) {
			w := newWatcher(t)
			step := frontStepper(t, w, "%1")
			first(w, step)
			for _, s := range []time.Duration{1, 2, startingFor/time.Second - 1} {
				sc := typed
				if s > 1 {
					sc = blank
				}
				if rec := step(t0.Add(s*time.Second), "opencode", 20, sc); rec.State != string(state.Busy) || rec.Rule != tracker.RuleStarting {
					t.Fatalf("opencode %ds after it started: %s %s, want BUSY %s", s, rec.State, rec.Rule, tracker.RuleStarting)
				}
			}
			end := t0.Add(time.Second + startingFor)
			if due := w.due(); !due["%1"].Equal(end) {
				t.Fatalf("due %v: the pane is due when it stops starting, %v", due, end)
			}
			if rec := step(end, "opencode", 20, blank); rec.State != string(state.Unknown) {
				t.Fatalf("opencode started %v ago: %s %s, want UNKNOWN", startingFor, rec.State, rec.Rule)
			}
			if at, ok := w.due()["%1"]; ok {
				t.Errorf("the pane is still due, at %v, after it stopped starting", at)
			}
		})
	}
	t.Run("found at the first look", func(t *testing.T) {
		w := newWatcher(t)
		step := frontStepper(t, w, "%1")
		for _, s := range []time.Duration{0, 1} {
			if rec := step(t0.Add(s*time.Second), "opencode", 20, blank); rec.State != string(state.Unknown) {
				t.Fatalf("an agent found at the first look, its screen blank: %s %s, want UNKNOWN", rec.State, rec.Rule)
			}
		}
	})
}
