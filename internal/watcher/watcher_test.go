package watcher

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/demo"
	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

func newWatcher(t *testing.T) *Watcher {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Watcher{Packs: packs.Load(""), Store: st, Snapshot: filepath.Join(dir, "snapshot.json"), Log: zerolog.Nop()}
}

// db is the real store under a watcher from newWatcher.
// stepper steps w with frames of the one pane showing a screen, failing the test on error.
func stepper(t *testing.T, w *Watcher, pane tmux.Pane) func(at time.Time, screen string) {
	return func(at time.Time, screen string) {
		t.Helper()
		if err := w.Step(observe.Frame{At: at, Panes: []tmux.Pane{pane}, Screens: map[string]string{pane.ID: screen}}); err != nil {
			t.Fatal(err)
		}
	}
}

// t0 is when the watcher tests' panes are first seen.
var t0 = time.Unix(1_700_000_000, 0).UTC()

// readyClaude shows a Claude Code pane, "api" (%1), at its prompt from t0 until READY
// has settled (t0 + 2 s), and returns the step that shows it again at a time.
func readyClaude(t *testing.T, w *Watcher) func(at time.Time) {
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "claude"}
	screen := readFixture(t, "claude/06-READY-after-short-answer.txt")
	stepTo := stepper(t, w, pane)
	step := func(at time.Time) { stepTo(at, screen) }
	step(t0)
	step(t0.Add(2 * time.Second))
	return step
}

func db(w *Watcher) *store.Store { return w.Store.(*store.Store) }

func readFixture(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "packs", "testdata", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPaneGoneWhileDaemonWasDownGoesOfflineThenIsPruned(t *testing.T) {
	w := newWatcher(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	if err := w.Store.Apply(store.Batch{Put: []wire.Pane{{ID: "%5", Name: "old", State: "READY", Since: t0, PID: 42}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Restore(); err != nil {
		t.Fatal(err)
	}
	live := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	err := w.Step(observe.Frame{At: t0.Add(time.Minute), Panes: []tmux.Pane{live},
		Screens: map[string]string{"%1": readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	hist, err := db(w).Transitions("%5", 10)
	if err != nil || len(hist) != 1 || hist[0].From != "READY" || hist[0].To != "OFFLINE" {
		t.Fatalf("history of the vanished pane = %+v, %v", hist, err)
	}
	panes, _ := w.Store.Panes()
	if len(panes) != 1 || panes[0].ID != "%1" || panes[0].State != "NEEDS_CONFIRMATION" || panes[0].Pack != "codex" {
		t.Fatalf("stored panes = %+v", panes)
	}
	snap, err := wire.ReadSnapshot(w.Snapshot)
	if err != nil || len(snap.Panes) != 1 || snap.Line != "[api: NEEDS_CONFIRMATION]" {
		b, _ := json.Marshal(snap)
		t.Fatalf("snapshot = %s, %v", b, err)
	}
	if got := w.States(); len(got) != 1 || got["NEEDS_CONFIRMATION"] != 1 {
		t.Fatalf("States() = %v, want the one live pane NEEDS_CONFIRMATION", got)
	}
}

func TestSnapshotWrittenOnlyOnChange(t *testing.T) {
	w := newWatcher(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: 7, Command: "codex"}
	screen := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	step := func(at time.Time) uint64 {
		if err := w.Step(observe.Frame{At: at, Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": screen}}); err != nil {
			t.Fatal(err)
		}
		_, snapshots, _ := w.Work()
		return snapshots
	}
	first := step(t0)
	if again := step(t0.Add(time.Second)); again != first {
		t.Errorf("an unchanged frame rewrote the snapshot")
	}
}

// TestLostSnapshotIsWrittenAgain: a snapshot someone removed or garbled is written again
// by a frame a snapshotCheckEvery after the last check, though nothing changed; frames
// within it do not look (one stat a second at most).
func TestLostSnapshotIsWrittenAgain(t *testing.T) {
	w := newWatcher(t)
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: 7, Command: "codex"}
	step := stepper(t, w, pane)
	screen := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	at := t0
	step(at, screen)
	for _, damage := range []func() error{
		func() error { return os.Remove(w.Snapshot) },
		func() error { return os.WriteFile(w.Snapshot, []byte("{garbage"), 0o600) },
	} {
		if err := damage(); err != nil {
			t.Fatal(err)
		}
		at = at.Add(snapshotCheckEvery / 2)
		step(at, screen)
		if _, err := wire.ReadSnapshot(w.Snapshot); err == nil {
			t.Fatal("the snapshot was checked again within snapshotCheckEvery")
		}
		at = at.Add(snapshotCheckEvery / 2)
		step(at, screen)
		if snap, err := wire.ReadSnapshot(w.Snapshot); err != nil || len(snap.Panes) != 1 {
			t.Fatalf("snapshot a check after it was damaged = %+v, %v", snap, err)
		}
	}
}

func TestSnapshotRewrittenOnChange(t *testing.T) {
	w := newWatcher(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: 7, Command: "codex"}
	w.Step(observe.Frame{At: t0, Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")}})
	w.Step(observe.Frame{At: t0.Add(time.Second), Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": readFixture(t, "codex/08-BUSY-running-command.txt")}})
	snap, err := wire.ReadSnapshot(w.Snapshot)
	if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != "BUSY" || snap.Line != "[w: BUSY]" {
		t.Errorf("snapshot after a change = %+v, %v", snap, err)
	}
}

func TestServerRestartReusingPaneIDs(t *testing.T) {
	w := newWatcher(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%0", Session: "s", Window: "w", WindowPanes: 1, PID: 7, Command: "codex"}
	screen := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	for i, server := range []string{"100:1", "200:2"} {
		// The second server restarted on the same socket: its first pane is %0 again, by
		// chance even with the same pid and screen.
		err := w.Step(observe.Frame{At: t0.Add(time.Duration(i) * time.Minute), Server: server,
			Panes: []tmux.Pane{pane}, Screens: map[string]string{"%0": screen}})
		if err != nil {
			t.Fatal(err)
		}
	}
	hist, _ := db(w).Transitions("%0", 10)
	var got []string
	for _, h := range hist {
		got = append(got, h.From+">"+h.To)
	}
	want := "UNKNOWN>NEEDS_CONFIRMATION,NEEDS_CONFIRMATION>OFFLINE,UNKNOWN>NEEDS_CONFIRMATION"
	if strings.Join(got, ",") != want {
		t.Errorf("history = %v, want %s", got, want)
	}
	panes, _ := w.Store.Panes()
	if len(panes) != 1 || panes[0].Server != "200:2" || !panes[0].Since.Equal(t0.Add(time.Minute)) {
		t.Errorf("stored pane = %+v", panes)
	}
}

func TestFrameWithoutCaptureKeepsPaneAsItWas(t *testing.T) {
	w := newWatcher(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	// A pane whose process names no pack: its pack comes from the screen.
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: 7, Command: "ssh"}
	screen := readFixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")
	w.Step(observe.Frame{At: t0, Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": screen}})
	w.Step(observe.Frame{At: t0.Add(time.Second), Panes: []tmux.Pane{pane}, Screens: map[string]string{}})
	panes, _ := w.Store.Panes()
	if len(panes) != 1 || panes[0].Pack != "claude" || panes[0].State != "NEEDS_CONFIRMATION" {
		t.Errorf("after a frame without its capture: %+v", panes)
	}
}

func TestAgentExitIsReported(t *testing.T) {
	w := newWatcher(t)
	var exited []string
	w.AgentExited = func(rec wire.Pane, agent string, at time.Time) { exited = append(exited, rec.ID+" "+agent) }
	t0 := time.Unix(1_700_000_000, 0).UTC()
	step := func(s int, cmd string, pid int, fixture string) {
		pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: pid, Command: cmd}
		w.Step(observe.Frame{At: t0.Add(time.Duration(s) * time.Second), Panes: []tmux.Pane{pane},
			Screens: map[string]string{"%1": readFixture(t, fixture)}})
	}
	step(0, "claude", 10, "claude/06-READY-after-short-answer.txt")
	step(1, "bash", 10, "claude/33-EXITED-shell-prompt-after-double-ctrl-c.txt")
	if len(exited) != 1 || exited[0] != "%1 claude" {
		t.Fatalf("exits reported = %v, want the claude exit", exited)
	}
	step(2, "python3", 10, "bash/13-READY-python-repl-waiting-for-input.txt")
	step(3, "bash", 10, "bash/01-EXITED-idle-shell-prompt-after-ls.txt")
	step(4, "codex", 20, "codex/07-READY-after-approved-command.txt")
	step(5, "bash", 30, "bash/01-EXITED-idle-shell-prompt-after-ls.txt")
	if len(exited) != 1 {
		t.Errorf("exits reported = %v: a REPL ending, or a respawned pane, is not an agent exit", exited)
	}
}

// A busy agent's summary changes with every frame of its spinner: the snapshot takes such
// changes at most once a second, and the pane is due then so the last one is not lost.
func TestSummaryAloneIsPublishedAtMostEverySecond(t *testing.T) {
	w, t0, spin := spinningClaude(t)
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: 7, Command: "claude"}
	summary := func(at time.Time, frame int) string {
		t.Helper()
		if err := spin(at, frame); err != nil {
			t.Fatal(err)
		}
		snap, err := wire.ReadSnapshot(w.Snapshot)
		if err != nil || len(snap.Panes) != 1 || snap.Panes[0].State != "BUSY" {
			t.Fatalf("snapshot = %+v, %v", snap, err)
		}
		return snap.Panes[0].Summary
	}
	first := summary(t0, 0)
	if got := summary(t0.Add(200*time.Millisecond), 1); got != first {
		t.Errorf("a new summary 200 ms after the last publish was published at once: %q", got)
	}
	if due, ok := w.due()["%1"]; !ok || !due.Equal(t0.Add(summaryEvery)) {
		t.Errorf("due = %v, %v; want the pane due at %v", due, ok, t0.Add(summaryEvery))
	}
	if got := summary(t0.Add(summaryEvery), 1); got == first {
		t.Errorf("the waiting summary was not published when due: still %q", got)
	}
	if due, own := w.due()["%1"], w.panes["%1"].tracker.Due(); !due.Equal(own) {
		t.Errorf("after its summary was published the pane is due at %v, want its tracker's time %v", due, own)
	}
	// A change of state is not held back.
	if err := w.Step(observe.Frame{At: t0.Add(summaryEvery + 100*time.Millisecond), Panes: []tmux.Pane{pane},
		Screens: map[string]string{"%1": readFixture(t, "claude/03-NEEDS_CONFIRMATION-use-custom-api-key-dialog.txt")}}); err != nil {
		t.Fatal(err)
	}
	if snap, err := wire.ReadSnapshot(w.Snapshot); err != nil || snap.Panes[0].State != "NEEDS_CONFIRMATION" {
		t.Errorf("snapshot right after a change of state = %+v, %v", snap, err)
	}
}

// When the snapshot cannot be written, a pending summary is retried a second later, not
// due at once for ever (which made the observers look again and again without waiting).
func TestPendingSummaryWaitsWhenPublishingFails(t *testing.T) {
	w, t0, frame := spinningClaude(t)
	if err := frame(t0, 0); err != nil {
		t.Fatal(err)
	}
	w.Snapshot = filepath.Join(t.TempDir(), "gone", "snapshot.json") // its directory does not exist
	if err := frame(t0.Add(200*time.Millisecond), 1); err != nil {
		t.Fatal(err) // the summary waits: nothing written yet
	}
	at := t0.Add(summaryEvery)
	if err := frame(at, 2); err == nil {
		t.Fatal("writing the snapshot into a missing directory succeeded: the test proves nothing")
	}
	if due := w.due()["%1"]; !due.After(at) {
		t.Errorf("after a failed publish at %v the pending summary is due at %v: at once, again and again", at, due)
	}
}

// spinningClaude is a watcher, a start time, and a step that shows it pane %1 with
// Claude Code's busy screen n (the demo's frames: each a new summary) at a time.
func spinningClaude(t *testing.T) (*Watcher, time.Time, func(at time.Time, n int) error) {
	t.Helper()
	frames, err := demo.Frames("claude", "busy")
	if err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t)
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "w", WindowPanes: 1, PID: 7, Command: "claude"}
	step := func(at time.Time, n int) error {
		return w.Step(observe.Frame{At: at, Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": frames[n]}})
	}
	return w, time.Unix(1_700_000_000, 0).UTC(), step
}

// TestRestartKeepsTheRule: after a restart, a pane whose state holds keeps the rule that
// set it (status --json shows it), rather than an empty one.
func TestRestartKeepsTheRule(t *testing.T) {
	w := newWatcher(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	screen := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	if err := w.Step(observe.Frame{At: t0, Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": screen}}); err != nil {
		t.Fatal(err)
	}
	first, _, _ := w.Pane("%1")
	if first.Rule == "" {
		t.Fatalf("no rule for %+v", first)
	}

	again := &Watcher{Packs: w.Packs, Store: w.Store, Snapshot: w.Snapshot, Log: zerolog.Nop()}
	if err := again.Restore(); err != nil {
		t.Fatal(err)
	}
	if err := again.Step(observe.Frame{At: t0.Add(time.Minute), Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": screen}}); err != nil {
		t.Fatal(err)
	}
	snap, err := wire.ReadSnapshot(again.Snapshot)
	if err != nil || len(snap.Panes) != 1 {
		t.Fatalf("snapshot %+v, %v", snap, err)
	}
	if got := snap.Panes[0]; got.State != first.State || got.Rule != first.Rule {
		t.Errorf("after a restart the pane is %s by %q; before, %s by %q", got.State, got.Rule, first.State, first.Rule)
	}
}

// TestLookupsNeverWaitForIO: while a frame's push to tmux hangs (a hung tmux server),
// Pane, which send and approve call, still answers: no I/O happens under the lock.
func TestLookupsNeverWaitForIO(t *testing.T) {
	w := newWatcher(t)
	release := make(chan struct{})
	pushing := make(chan struct{}, 1)
	w.Push = func(string) error {
		pushing <- struct{}{}
		<-release
		return nil
	}
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "codex"}
	screen := readFixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.txt")
	stepped := make(chan error, 1)
	go func() {
		stepped <- w.Step(observe.Frame{At: time.Now(), Panes: []tmux.Pane{pane}, Screens: map[string]string{"%1": screen}})
	}()
	<-pushing
	looked := make(chan bool, 1)
	go func() {
		_, _, ok := w.Pane("%1")
		looked <- ok
	}()
	select {
	case ok := <-looked:
		if !ok {
			t.Errorf("the pane is not known while its frame is being published")
		}
	case <-time.After(10 * time.Second):
		t.Errorf("Pane waited for the push to tmux: I/O under the lock")
	}
	close(release)
	if err := <-stepped; err != nil {
		t.Fatal(err)
	}
}

// TestWindowOntoAHostsPaneIsNotWatched: a pane that shows another host's pane (paneherd
// switch HOST:TARGET marks it @paneherd-remote) is that host's to read: no record here,
// though its screen shows a dialog.
func TestWindowOntoAHostsPaneIsNotWatched(t *testing.T) {
	w := newWatcher(t)
	view := tmux.Pane{ID: "%2", Session: "s", Window: "devbox:api", WindowPanes: 1, PID: 8, Command: "ssh", OptRemote: "devbox:%5"}
	screen := readFixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")
	if err := w.Step(observe.Frame{At: t0, Panes: []tmux.Pane{view}, Screens: map[string]string{"%2": screen}}); err != nil {
		t.Fatal(err)
	}
	panes, _ := w.Store.Panes()
	snap, err := wire.ReadSnapshot(w.Snapshot)
	if len(panes) != 0 || err != nil || len(snap.Panes) != 0 {
		t.Errorf("a window onto a host's pane is watched: stored %+v, snapshot %+v %v", panes, snap.Panes, err)
	}
}

// An idle prompt after work settles at its due time in a frame that only says the pane
// printed nothing since (observe.Frame.Unchanged): no capture of the same screen needed.
func TestAnUnchangedPaneSettlesAtItsDueTime(t *testing.T) {
	w := newWatcher(t)
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "claude"}
	step := stepper(t, w, pane)
	step(t0, readFixture(t, "claude/103-BUSY-thinking-2.1.332-120x40.txt"))
	step(t0.Add(time.Second), readFixture(t, "claude/104-READY-after-interrupt-thinking-2.1.332-120x40.txt"))
	due, ok := w.due()["%1"]
	if rec, _, _ := w.Pane("%1"); rec.State != string(state.Busy) || !ok {
		t.Fatalf("an idle prompt just drawn after work: %s, due %v (%v); want BUSY until due", rec.State, due, ok)
	}
	if err := w.Step(observe.Frame{At: due, Panes: []tmux.Pane{pane}, Unchanged: map[string]bool{"%1": true}}); err != nil {
		t.Fatal(err)
	}
	if rec, _, _ := w.Pane("%1"); rec.State != string(state.Ready) || !rec.Since.Equal(due) {
		t.Errorf("at its due time, unchanged: %s since %v; want READY since %v", rec.State, rec.Since, due)
	}
}

// The panes at work the observer is told of (observe.WorkAware): an agent a pack rule
// reads at work, not one at its prompt, nor output that no rule reads, nor a program a
// shell runs (read BUSY by the shell pack).
func TestWorkingIsTheAgentsAtWork(t *testing.T) {
	w := newWatcher(t)
	claude := tmux.Pane{ID: "%1", Session: "s", Window: "api", WindowPanes: 1, PID: 7, Command: "claude"}
	shell := tmux.Pane{ID: "%2", Session: "s", Window: "sh", WindowPanes: 1, PID: 8, Command: "bash"}
	build := tmux.Pane{ID: "%3", Session: "s", Window: "make", WindowPanes: 1, PID: 9, Command: "make"}
	frame := func(at time.Time, agent, sh string) {
		t.Helper()
		err := w.Step(observe.Frame{At: at, Panes: []tmux.Pane{claude, shell, build},
			Screens: map[string]string{"%1": agent, "%2": sh, "%3": "$ make\n" + sh}})
		if err != nil {
			t.Fatal(err)
		}
	}
	frame(t0, readFixture(t, "claude/103-BUSY-thinking-2.1.332-120x40.txt"), "building 1")
	frame(t0.Add(100*time.Millisecond), readFixture(t, "claude/103-BUSY-thinking-2.1.332-120x40.txt"), "building 2")
	if rec, _, _ := w.Pane("%3"); rec.State != string(state.Busy) {
		t.Fatalf("the build's pane reads %s by %q: the test wants a program a shell runs, read BUSY", rec.State, rec.Rule)
	}
	if got := w.working(); !got["%1"] || len(got) != 1 {
		rec, _, _ := w.Pane("%2")
		t.Errorf("working = %v (the shell's output: %s %s); want the thinking agent alone", got, rec.State, rec.Rule)
	}
	frame(t0.Add(5*time.Second), readFixture(t, "claude/104-READY-after-interrupt-thinking-2.1.332-120x40.txt"), "building 2")
	frame(t0.Add(7*time.Second), readFixture(t, "claude/104-READY-after-interrupt-thinking-2.1.332-120x40.txt"), "building 2")
	if got := w.working(); len(got) != 0 {
		t.Errorf("working = %v once the agent is at its prompt; want none", got)
	}
}
