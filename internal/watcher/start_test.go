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

// front is who runs in front of a test pane: its own process (pid, named own, leading
// group pid) and the group in front of its terminal, led by command.
type front struct {
	pid     int
	own     string
	group   int
	command string
}

// inShell is a bash pane (pid 10) with the group in front: its own (10) at its prompt,
// another while a command it started runs.
func inShell(group int, command string) front {
	return front{pid: 10, own: "bash", group: group, command: command}
}

// frontStepper steps w with frames of one pane as its front changes, and returns the
// pane's record after each.
func frontStepper(t *testing.T, w *Watcher, id string) func(at time.Time, f front, sc string) wire.Pane {
	return func(at time.Time, f front, sc string) wire.Pane {
		t.Helper()
		pane := tmux.Pane{ID: id, Session: "s", Window: "w", WindowPanes: 1, PID: f.pid, Command: f.command}
		fg := proc.Foreground{PID: f.pid, Name: f.own, Own: f.pid, Group: f.group}
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

func joined(parts ...[]string) []string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// restartScreens are the screens of Claude Code killed at a permission dialog and started
// again from its shell (a real screen: the old dialog above, the command typed at the
// shell's prompt below, the new process yet to draw): alive at the dialog, the shell's
// prompt below it, the command typed, and the new Claude's first drawing below.
type restartScreens struct{ live, atPrompt, restarted, firstDraw []string }

func claudeRestart(t *testing.T) restartScreens {
	b, err := os.ReadFile("testdata/claude-restarted-under-its-old-dialog.txt")
	if err != nil {
		t.Fatal(err)
	}
	restarted := rows(string(b)) // ends with "user@devbox:~/proj# claude"
	prompt := restarted[len(restarted)-1]
	welcome := rows(readFixture(t, "claude/06-READY-after-short-answer.txt"))
	return restartScreens{
		live:      restarted[:len(restarted)-4],
		atPrompt:  joined(restarted[:len(restarted)-1], []string{strings.TrimSuffix(prompt, "claude")}),
		restarted: restarted,
		firstDraw: joined(restarted, welcome[:11], welcome[19:24]),
	}
}

// (a) A CLI started again below the dialog its killed predecessor left: the dialog was
// drawn before the new process started, so it is history, also before the new process
// draws anything (BUSY starting), and once it drew its box below it (READY). What the new
// process draws below is read, a dialog of its own too, even one of the same text.
func TestAgentStartedBelowItsOldDialogIsNotThatDialog(t *testing.T) {
	s := claudeRestart(t)
	w := newWatcher(t)
	step := frontStepper(t, w, "%1")
	if rec := step(t0, inShell(20, "claude"), strings.Join(s.live, "\n")); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("Claude alive at its dialog: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
	step(t0.Add(time.Second), inShell(10, "bash"), strings.Join(s.atPrompt, "\n"))
	for _, sec := range []int{2, 3, 5} {
		rec := step(t0.Add(time.Duration(sec)*time.Second), inShell(30, "claude"), strings.Join(s.restarted, "\n"))
		if rec.State != string(state.Busy) || rec.Rule != tracker.RuleStarting || rec.Summary != "starting" {
			t.Fatalf("at %ds, Claude started again below the old dialog: %s %s %q, want BUSY %s", sec, rec.State, rec.Rule, rec.Summary, tracker.RuleStarting)
		}
	}
	if rec := step(t0.Add(6*time.Second), inShell(30, "claude"), screenOf(s.firstDraw, 40)); rec.State == string(state.NeedsConfirmation) {
		t.Fatalf("the new Claude drew its box below the old dialog: %s %s", rec.State, rec.Rule)
	}
	if rec := step(t0.Add(9*time.Second), inShell(30, "claude"), screenOf(s.firstDraw, 40)); rec.State != string(state.Ready) {
		t.Fatalf("the new Claude at its empty box: %s %s, want READY", rec.State, rec.Rule)
	}

	dialog := rows(readFixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt"))
	w2 := newWatcher(t)
	step2 := frontStepper(t, w2, "%1")
	step2(t0, inShell(20, "claude"), strings.Join(s.live, "\n"))
	step2(t0.Add(time.Second), inShell(10, "bash"), strings.Join(s.atPrompt, "\n"))
	step2(t0.Add(2*time.Second), inShell(30, "claude"), strings.Join(s.restarted, "\n"))
	newDialog := screenOf(joined(s.restarted, dialog[len(dialog)-12:]), 40)
	if rec := step2(t0.Add(3*time.Second), inShell(30, "claude"), newDialog); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("the new Claude asks, below the old dialog, the same question: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}

	// A CLI that clears the screen and draws from the top may draw rows that read as the
	// old ones did, in the same places: without the prompt it was started from, they are
	// drawn anew.
	w3 := newWatcher(t)
	step3 := frontStepper(t, w3, "%1")
	step3(t0, inShell(20, "claude"), strings.Join(s.live, "\n"))
	step3(t0.Add(time.Second), inShell(10, "bash"), strings.Join(s.atPrompt, "\n"))
	if rec := step3(t0.Add(2*time.Second), inShell(30, "claude"), strings.Join(s.live, "\n")); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("the new Claude cleared the screen and asks the same question where the old one did: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
}

// (b) A pane respawned (a new process of its own: tmux starts it on a blank screen) whose
// new screen is a dialog is that dialog, though its rows are rows the screen before it
// showed, in the same places: everything on it was drawn after the process started. So
// is a dialog shown, a busy screen, and the same dialog again (the e2e tests' replays).
func TestRespawnedPaneShowsItsOwnDialog(t *testing.T) {
	s := claudeRestart(t)
	w := newWatcher(t)
	step := frontStepper(t, w, "%1")
	respawned := func(pid int) front { return front{pid: pid, own: "sleep", group: pid, command: "sleep"} }
	step(t0, respawned(10), strings.Join(s.live, "\n"))
	busy := readFixture(t, "claude/16-BUSY-thinking-before-first-token.txt")
	if rec := step(t0.Add(time.Second), respawned(11), busy); rec.State != string(state.Busy) {
		t.Fatalf("respawned onto a busy Claude: %s %s, want BUSY", rec.State, rec.Rule)
	}
	if rec := step(t0.Add(2*time.Second), respawned(12), strings.Join(s.live, "\n")); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("respawned onto Claude's dialog: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
	// The same screen, rows and all, as the one before the respawn.
	if rec := step(t0.Add(3*time.Second), respawned(13), strings.Join(s.live, "\n")+"\n"); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("respawned onto the dialog it showed before: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
	// A shell's screen, the dialog drawn below it by a process started in its place.
	if rec := step(t0.Add(4*time.Second), respawned(14), strings.Join(s.restarted[:len(s.restarted)-4], "\n")); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("respawned onto a dialog below old rows: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
}

// (c) A CLI's own children and execs change what is in front of its pane: a child's group
// takes the terminal and gives it back, the group's leader runs another program. None is
// the CLI starting: the dialog it drew stays its live dialog.
func TestAgentsOwnChildrenAreNoStart(t *testing.T) {
	s := claudeRestart(t)
	w := newWatcher(t)
	step := frontStepper(t, w, "%1")
	step(t0, inShell(10, "bash"), strings.Join(s.atPrompt, "\n"))
	dialog := rows(readFixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt"))
	asks := screenOf(joined(s.restarted, dialog[len(dialog)-12:]), 40)
	if rec := step(t0.Add(time.Second), inShell(30, "claude"), asks); rec.State != string(state.NeedsConfirmation) {
		t.Fatalf("Claude started from its shell asks: %s %s, want NEEDS_CONFIRMATION", rec.State, rec.Rule)
	}
	fronts := []front{
		inShell(40, "claude"),                             // a child's group has the terminal
		inShell(30, "claude"),                             // and gives it back
		inShell(30, "node"),                               // the group's leader exec'd
		{pid: 10, own: "bash", group: 0, command: "node"}, // its front unread
		inShell(30, "node"),
	}
	for i, f := range fronts {
		// The screen changes a little each time, so it is read again.
		sc := asks + strings.Repeat("\n", i+1) + " "
		if rec := step(t0.Add(time.Duration(2+i)*time.Second), f, sc); rec.State != string(state.NeedsConfirmation) {
			t.Fatalf("front %+v: Claude's own dialog reads %s %s, want NEEDS_CONFIRMATION", f, rec.State, rec.Rule)
		}
	}
}

// An agent starting reads BUSY "starting" while its screen fits no rule yet, for
// startingFor, and after that while its screen stays blank (a CLI loading), no longer: started in a pane's shell, in a pane new since the
// daemon's first look, or in a respawned pane. A pane the first look finds is no start:
// nobody knows its age.
func TestAgentStartingIsBusy(t *testing.T) {
	shell := rows(readFixture(t, "bash/01-EXITED-idle-shell-prompt-after-ls.txt"))
	typed := strings.Join(joined(shell[:len(shell)-1], []string{shell[len(shell)-1] + "opencode"}), "\n")
	blank := "\n\n"
	opencode := inShell(20, "opencode")
	firstLook := map[string]func(w *Watcher, step func(time.Time, front, string) wire.Pane) front{
		"in a shell": func(_ *Watcher, step func(time.Time, front, string) wire.Pane) front {
			step(t0, inShell(10, "bash"), strings.Join(shell, "\n"))
			return opencode
		},
		"in a new pane": func(w *Watcher, _ func(time.Time, front, string) wire.Pane) front {
			w.Step(observe.Frame{At: t0})
			return opencode
		},
		"in a respawned pane": func(_ *Watcher, step func(time.Time, front, string) wire.Pane) front {
			step(t0, inShell(10, "bash"), strings.Join(shell, "\n"))
			return front{pid: 11, own: "opencode", group: 11, command: "opencode"}
		},
	}
	for name, first := range firstLook {
		t.Run(name, func(t *testing.T) {
			w := newWatcher(t)
			step := frontStepper(t, w, "%1")
			f := first(w, step)
			for _, s := range []time.Duration{1, 2, startingFor/time.Second - 1} {
				sc := typed
				if s > 1 {
					sc = blank
				}
				if rec := step(t0.Add(s*time.Second), f, sc); rec.State != string(state.Busy) || rec.Rule != tracker.RuleStarting {
					t.Fatalf("opencode %ds after it started: %s %s, want BUSY %s", s, rec.State, rec.Rule, tracker.RuleStarting)
				}
			}
			end := t0.Add(time.Second + startingFor)
			if due := w.due(); !due["%1"].Equal(end) {
				t.Fatalf("due %v: the pane is due when it stops starting, %v", due, end)
			}
			if rec := step(end, f, blank); rec.State != string(state.Busy) || rec.Rule != tracker.RuleStarting {
				t.Fatalf("opencode started %v ago, its screen still blank: %s %s, want BUSY %s", startingFor, rec.State, rec.Rule, tracker.RuleStarting)
			}
			if at, ok := w.due()["%1"]; ok && !at.After(end) {
				t.Fatalf("read blank when its start ended, the pane is due again at %v: only its output ends the start", at)
			}
			step(end.Add(time.Second), f, "Loading plugins") // moving: BUSY, as any screen that moves
			if rec := step(end.Add(3*time.Second), f, "Loading plugins"); rec.State != string(state.Unknown) {
				t.Fatalf("opencode started %v ago, drawing what no rule fits: %s %s, want UNKNOWN", startingFor, rec.State, rec.Rule)
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
			if rec := step(t0.Add(s*time.Second), opencode, blank); rec.State != string(state.Unknown) {
				t.Fatalf("an agent found at the first look, its screen blank: %s %s, want UNKNOWN", rec.State, rec.Rule)
			}
		}
	})
}
