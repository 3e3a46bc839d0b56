package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/dbustest"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
)

// superviseRig is a rig whose tmux server has the stand-in agent on its PATH and its
// pack installed, with the supervisor's clocks short.
func superviseRig(t *testing.T) (*rig, string) {
	r := newRig(t)
	standin, err := filepath.Abs(filepath.Join("testdata", "standin"))
	if err != nil {
		t.Fatal(err)
	}
	packs := filepath.Join(r.home, "config", "paneherd", "packs")
	os.MkdirAll(packs, 0o755)
	pack, _ := os.ReadFile(filepath.Join(standin, "standin.toml"))
	os.WriteFile(filepath.Join(packs, "standin.toml"), pack, 0o644)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.tmux.Run("set-environment", "-g", "PATH", standin+string(os.PathListSeparator)+os.Getenv("PATH"))
	r.setOptions("nudge-every", "1s", "nudges", "2", "retire-wait", "3s", "health-min", "1s", "send-quiet", "0s",
		"send-limit", "100")
	project := filepath.Join(r.home, "src", "api")
	os.MkdirAll(project, 0o755)
	return r, project
}

// worker is a managed worker's record in `workers --json`.
func (r *rig) worker(name string) wire.Worker {
	r.t.Helper()
	out, errs, code := r.paneherd("workers", "--json")
	if code != 0 {
		r.t.Fatalf("workers --json: exit %d: %s", code, errs)
	}
	var ws []wire.Worker
	if err := json.Unmarshal([]byte(out), &ws); err != nil {
		r.t.Fatalf("workers --json: %v\n%s", err, out)
	}
	for _, w := range ws {
		if w.Name == name {
			return w
		}
	}
	return wire.Worker{}
}

type created struct {
	Worker  wire.Worker
	Started struct{ Final_State, State string }
	Prompt  *struct{ Outcome string }
}

func (r *rig) create(args ...string) created {
	r.t.Helper()
	out, errs, code := r.paneherd(append([]string{"create", "--json"}, args...)...)
	if code != 0 {
		r.dump()
		r.t.Fatalf("create %v: exit %d: %s %s", args, code, out, errs)
	}
	var c created
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		r.t.Fatalf("create: %v\n%s", err, out)
	}
	return c
}

func (r *rig) typeLine(pane, line string) {
	r.tmux.Run("send-keys", "-t", pane, "-l", line)
	r.tmux.Run("send-keys", "-t", pane, "Enter")
}

func (r *rig) events(name string) string {
	out, _, _ := r.paneherd("history", "--json", "--limit", "0")
	var h struct {
		Entries []struct{ Kind, Detail string }
	}
	json.Unmarshal([]byte(out), &h)
	var lines []string
	for _, e := range h.Entries {
		if e.Kind == "worker" && strings.HasPrefix(e.Detail, name+" ") {
			lines = append(lines, e.Detail)
		}
	}
	return strings.Join(lines, "\n")
}

// TestSupervisorKeepsAWorkerAlive: create -> READY with its first prompt; its process
// killed -> offline, restarted with the resume command, READY again; its pane closed ->
// a new window, READY again; then retired.
func TestSupervisorKeepsAWorkerAlive(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	c := r.create(project, "--pack", "standin", "--prompt", "hello there")
	w := c.Worker
	if c.Started.Final_State != "reached" || c.Prompt == nil || c.Prompt.Outcome != "DELIVERED" {
		t.Fatalf("create: %+v", c)
	}
	if w.Name != "api" || w.Session != "agents_api" || w.Window != "api" || w.Workspace != project {
		t.Errorf("worker = %+v; want the directory's name, session agents_api", w)
	}
	r.waitFor("the worker is ready", 30*time.Second, func() bool { return r.worker("api").Status == "ready" })
	st := r.status()[w.PaneID]
	if st.Name != "api" || st.Pack != "standin" {
		t.Errorf("status of the worker's pane = %+v", st)
	}

	// Its process dies: offline, then restarted in its pane's place, continuing. A wait
	// on the worker by its name follows it into the new pane.
	pid := r.worker("api").PID
	window := r.tmux.Run("display-message", "-p", "-t", w.PaneID, "#{window_id}")
	waited := make(chan string, 1)
	go func() {
		out, errs, _ := r.paneherd("wait", "api", "--until", "BUSY", "--timeout", "30s", "--json")
		waited <- out + errs
	}()
	killed := time.Now()
	if err := exec.Command("kill", "-9", strconv.Itoa(pid)).Run(); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
	var offline time.Duration
	r.waitFor("the worker is restarted", 30*time.Second, func() bool {
		w := r.worker("api")
		if offline == 0 && (w.Status == "offline" || w.Restarts > 0) {
			offline = time.Since(killed)
		}
		return w.Restarts == 1
	})
	r.waitFor("the restarted worker is READY", 30*time.Second, func() bool {
		cur := r.worker("api")
		return r.status()[cur.PaneID].State == "READY" && cur.Status == "ready"
	})
	ready := time.Since(killed)
	cur := r.worker("api")
	if panes := r.tmux.Run("list-panes", "-t", cur.PaneID, "-F", "#{pane_id} #{window_id}"); panes != cur.PaneID+" "+window {
		t.Errorf("panes of the restarted worker's window: %q; want its new pane %s alone, in window %s", panes, cur.PaneID, window)
	}
	t.Logf("process killed: seen offline (or restarted) after %v, READY again after %v", offline, ready)
	if offline > 3*time.Second {
		// The process watch (a pidfd) tells within milliseconds; the daemon's own list
		// would take up to 5 s: this catches the watch not working.
		t.Errorf("the death was noticed only after %v", offline)
	}
	if screen := r.tmux.Run("capture-pane", "-p", "-t", cur.PaneID); !strings.Contains(screen, "resumed the last conversation") {
		t.Errorf("restarted without its resume command:\n%s", screen)
	}
	r.typeLine(cur.PaneID, "work") // BUSY for 1 s: what the wait waits for
	if got := <-waited; !strings.Contains(got, `"final_state":"reached"`) || !strings.Contains(got, `"pane_id":"`+cur.PaneID+`"`) {
		t.Errorf("wait api --until BUSY across the restart: %s; want reached in the new pane %s", got, cur.PaneID)
	}

	// Its pane closed: a new window of the same name in its session.
	r.tmux.Run("kill-pane", "-t", cur.PaneID)
	r.waitFor("the worker runs in a new pane", 30*time.Second, func() bool {
		nw := r.worker("api")
		return nw.Restarts == 2 && nw.PaneID != cur.PaneID && nw.Status == "ready"
	})
	nw := r.worker("api")
	if nw.Session != "agents_api" || nw.Window != "api" {
		t.Errorf("reopened at %s:%s", nw.Session, nw.Window)
	}
	metrics, _, _ := r.paneherd("metrics")
	for _, want := range []string{`paneherd_worker_restarts_total{why="died",worker="api"} 1`, `paneherd_worker_restarts_total{why="gone",worker="api"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
	events := r.events("api")
	for _, want := range []string{"api registered", "api offline", "api restarted", "api ready"} {
		if !strings.Contains(events, want) {
			t.Errorf("history lacks %q:\n%s", want, events)
		}
	}

	out, errs, code := r.paneherd("retire", "api")
	if code != 0 {
		t.Fatalf("retire: exit %d: %s %s", code, out, errs)
	}
	if r.worker("api").Name != "" {
		t.Errorf("the record stays after retire")
	}
	if panes := r.tmux.Run("list-panes", "-a", "-F", "#{pane_id}"); strings.Contains(panes, nw.PaneID) {
		t.Errorf("the retired worker's pane %s is still there", nw.PaneID)
	}
	if events := r.events("api"); !strings.Contains(events, "api retired: pressed C-c") {
		t.Errorf("history lacks the retirement:\n%s", events)
	}
}

// TestSupervisorGivesUpOnACrashLoop: three crashes within the window -> failed, one
// notification, no more restarts until continued.
func TestSupervisorGivesUpOnACrashLoop(t *testing.T) {
	bus := dbustest.Bus(t)
	server := dbustest.Serve(t, bus)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
	r, project := superviseRig(t)
	r.start()
	r.create(project, "--pack", "standin", "--name", "flaky")
	for i := 1; i <= 3; i++ {
		r.waitFor("the worker is READY", 30*time.Second, func() bool {
			cur := r.worker("flaky")
			return cur.Status == "ready" && r.status()[cur.PaneID].State == "READY"
		})
		r.typeLine(r.worker("flaky").PaneID, "crash") // each restart is a new pane
		if i < 3 {
			r.waitFor("the worker is restarted", 30*time.Second, func() bool { return r.worker("flaky").Restarts == i })
		}
	}
	r.waitFor("the worker is failed", 30*time.Second, func() bool { return r.worker("flaky").Status == "failed" })
	failedNotes := func() int { // alone, or a line of a burst's summary (the third crash's exit may join it)
		n := 0
		for _, got := range server.Received() {
			if strings.Contains(got.Summary+"\n"+got.Body, "flaky failed and is not restarted") {
				n++
			}
		}
		return n
	}
	r.waitFor("one notification", 30*time.Second, func() bool { return failedNotes() == 1 })
	if got := r.worker("flaky"); got.Restarts != 2 {
		t.Errorf("restarts = %d after three crashes; want 2 (the third gives up)", got.Restarts)
	}
	out, errs, code := r.paneherd("workers", "continue", "flaky")
	if code != 0 {
		t.Fatalf("workers continue: exit %d: %s %s", code, out, errs)
	}
	r.waitFor("the worker runs again", 30*time.Second, func() bool { return r.worker("flaky").Status == "ready" })
	if n := failedNotes(); n != 1 {
		t.Errorf("%d failure notifications; want 1", n)
	}
}

// TestSupervisorNudgesThenEscalatesAFrozenWorker, and sends health prompts only while
// the worker is READY.
func TestSupervisorNudgesThenEscalatesAFrozenWorker(t *testing.T) {
	bus := dbustest.Bus(t)
	server := dbustest.Serve(t, bus)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
	r, project := superviseRig(t)
	log := filepath.Join(t.TempDir(), "standin.log")
	r.tmux.Run("set-environment", "-g", "STANDIN_LOG", log)
	r.start()
	w := r.create(project, "--pack", "standin", "--name", "slow", "--health-every", "1s", "--health-prompt", "are you there").Worker
	r.waitFor("a health prompt arrives", 30*time.Second, func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "are you there")
	})
	r.waitFor("the worker is READY", 30*time.Second, func() bool { return r.status()[w.PaneID].State == "READY" })
	r.typeLine(w.PaneID, "hang")
	hangAt := time.Now()
	r.waitFor("the worker is escalated", 60*time.Second, func() bool { return strings.Contains(r.events("slow"), "slow escalated") })
	events := r.events("slow")
	if n := strings.Count(events, "slow nudged"); n != 2 {
		t.Errorf("%d nudges before escalating; want 2:\n%s", n, events)
	}
	if !strings.Contains(events, "⠋ working (esc to interrupt)") {
		t.Errorf("the escalation does not keep the frozen screen's last lines:\n%s", events)
	}
	r.waitFor("a critical notification", 30*time.Second, func() bool {
		for _, got := range server.Received() {
			if strings.Contains(got.Summary, "slow is frozen") && got.Urgency == 2 {
				return true
			}
		}
		return false
	})
	// Health prompts went out while it was READY, and none once it was at work: the
	// audit holds every send.
	out, _, _ := r.paneherd("history", w.PaneID, "--json", "--limit", "0")
	var h struct {
		Entries []struct {
			At           time.Time
			Kind, Detail string
		}
	}
	json.Unmarshal([]byte(out), &h)
	for _, e := range h.Entries {
		if e.Kind == "send" && e.At.After(hangAt.Add(2*time.Second)) {
			t.Errorf("a prompt was sent to the worker at work: %+v", e)
		}
	}
}

// TestCreateRefusesBadInputAndCreatesNothing: each mistake is one line on stderr, exit 1
// or 2, and neither a window nor a record nor a worktree appears.
func TestCreateRefusesBadInputAndCreatesNothing(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	notDir := filepath.Join(project, "README")
	os.WriteFile(notDir, []byte("x"), 0o644)
	outside := t.TempDir() // not under the rig's home, the allowed workspace
	r.create(project, "--pack", "standin", "--name", "taken")
	windows := r.tmux.Run("list-windows", "-a", "-F", "#{session_name}:#{window_name}")
	cases := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"missing dir", []string{filepath.Join(project, "nope"), "--pack", "standin"}, 1, "does not exist"},
		{"not a directory", []string{notDir, "--pack", "standin"}, 1, "is not a directory"},
		{"outside the workspaces", []string{outside, "--pack", "standin"}, 1, "outside the allowed workspaces"},
		{"name taken", []string{project, "--pack", "standin", "--name", "taken"}, 1, `a worker named "taken" exists`},
		{"unknown pack", []string{project, "--pack", "nosuch"}, 1, "nosuch"},
		{"no git repository", []string{project, "--pack", "standin", "--name", "wt", "--worktree", "feature"}, 1, "not in a git repository"},
		{"bad restart policy", []string{project, "--pack", "standin", "--name", "x", "--restart", "sometimes"}, 1, "on-failure, always or never"},
		{"a name tmux misreads", []string{project, "--pack", "standin", "--name", "a.b"}, 1, "letters, digits"},
		{"nothing to run", []string{project, "--name", "y"}, 1, "nothing to run"},
		{"no directory", []string{"--pack", "standin"}, 2, "one DIR"},
		{"health prompt alone", []string{project, "--pack", "standin", "--health-prompt", "hi"}, 2, "go together"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := r.paneherd(append([]string{"create"}, c.args...)...)
			first, _, _ := strings.Cut(errs, "\n")
			if code != c.code || !strings.Contains(first, c.says) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line saying %q", code, out, errs, c.code, c.says)
			}
			if c.code == 1 && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", errs)
			}
		})
	}
	if after := r.tmux.Run("list-windows", "-a", "-F", "#{session_name}:#{window_name}"); after != windows {
		t.Errorf("windows changed:\n%s\nwas:\n%s", after, windows)
	}
	out, _, _ := r.paneherd("workers", "--json")
	if strings.Count(out, `"name"`) != 1 {
		t.Errorf("registry after refusals: %s", out)
	}
	if _, err := os.Stat(project + ".worktrees"); err == nil {
		t.Errorf("a worktree directory was made for a refused create")
	}
}

// TestCreateInADirectoryNamedLikeAFormat: tmux expands new-window's and respawn-pane's
// -c as a format; a workspace named '#(…)' runs no command and one named 'a##b' or
// 'h#{pane_id}x' is the directory the worker runs in, at its start and at a restart.
func TestCreateInADirectoryNamedLikeAFormat(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	mark := filepath.Join(r.tmux.Home, "pwned")
	for i, name := range []string{"#(cd;touch pwned)", "a##b", "h#{pane_id}x"} {
		dir := filepath.Join(project, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		worker := "w" + strconv.Itoa(i)
		w := r.create(dir, "--pack", "standin", "--name", worker).Worker
		if w.Workspace != dir {
			t.Errorf("create %q: workspace %q", name, w.Workspace)
		}
		r.waitFor("the worker runs in "+name, 30*time.Second, func() bool {
			return r.tmux.Run("display-message", "-p", "-t", w.PaneID, "#{pane_current_path}") == dir
		})
		r.typeLine(w.PaneID, "crash")
		r.waitFor("the worker is restarted", 30*time.Second, func() bool { return r.worker(worker).Restarts == 1 })
		r.waitFor("the restarted worker runs in "+name, 30*time.Second, func() bool {
			cur := r.worker(worker)
			return cur.PID != w.PID && r.tmux.Run("display-message", "-p", "-t", cur.PaneID, "#{pane_current_path}") == dir
		})
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("a directory's name ran a command: %s exists", mark)
	}
}

// TestCreateInAGitWorktree makes a worktree for the branch and starts the worker there;
// switch takes a client to it.
func TestCreateInAGitWorktree(t *testing.T) {
	r, project := superviseRig(t)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", project}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	r.start()
	w := r.create(project, "--pack", "standin", "--worktree", "fix/login").Worker
	want := filepath.Join(project+".worktrees", "fix_login")
	if w.Name != "fix_login" || w.Workspace != want || w.Worktree != "fix/login" || w.Session != "agents_api" {
		t.Errorf("worker = %+v; want it named for the branch, in %s", w, want)
	}
	head, err := exec.Command("git", "-C", want, "rev-parse", "--abbrev-ref", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(head)) != "fix/login" {
		t.Errorf("the worktree is on %q (%v)", head, err)
	}
	if cwd := r.tmux.Run("display-message", "-p", "-t", w.PaneID, "#{pane_current_path}"); strings.TrimSpace(cwd) != want {
		t.Errorf("the worker runs in %q", cwd)
	}
	attachViewer(t, r, "main")
	out, errs, code := r.paneherd("switch", "fix_login")
	if code != 0 {
		t.Fatalf("switch: exit %d: %s %s", code, out, errs)
	}
	r.waitFor("the client shows the worker", 10*time.Second, func() bool {
		return strings.Contains(r.tmux.Run("list-clients", "-F", "#{client_control_mode} #{pane_id}"), "0 "+w.PaneID)
	})
}

// TestSupervisorRebindsAMovedWorker: a renamed or moved window is followed, and said
// (REGISTRY_DRIFT), never silently wrong.
func TestSupervisorRebindsAMovedWorker(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	w := r.create(project, "--pack", "standin").Worker
	r.tmux.Run("rename-window", "-t", w.PaneID, "renamed")
	r.waitFor("the record follows the window", 30*time.Second, func() bool { return r.worker("api").Window == "renamed" })
	got := r.worker("api")
	if got.PaneID != w.PaneID || !strings.Contains(got.Why, "REGISTRY_DRIFT") {
		t.Errorf("after the rename: %+v", got)
	}
	if ev := r.events("api"); !strings.Contains(ev, "api drift: REGISTRY_DRIFT: its pane "+w.PaneID+" is now in agents_api:renamed") {
		t.Errorf("history lacks the drift:\n%s", ev)
	}
	if metrics, _, _ := r.paneherd("metrics"); !strings.Contains(metrics, `paneherd_reconcile_drifts_total{kind="moved"} 1`) {
		t.Errorf("metrics do not count the drift:\n%s", metrics)
	}
	r.tmux.Run("move-window", "-s", w.PaneID, "-t", "main:")
	r.waitFor("the record follows the move", 30*time.Second, func() bool { return r.worker("api").Session == "main" })
}

// TestSupervisorResumesAWorkerThatTakesNoPrompt: a trigger (a prompt in an envelope)
// that is never taken (ACK_TIMEOUT) restarts the worker with its resume command.
func TestSupervisorResumesAWorkerThatTakesNoPrompt(t *testing.T) {
	r, project := superviseRig(t)
	r.setOptions("send-ack-timeout", "1s")
	r.start()
	w := r.create(project, "--pack", "standin").Worker
	r.typeLine(w.PaneID, "deaf")
	// It was READY before: wait for the prompt it draws once deaf, under the line typed.
	r.waitFor("the deaf worker reads READY", 30*time.Second, func() bool {
		screen := strings.TrimRight(r.tmux.Run("capture-pane", "-p", "-t", w.PaneID), "\n ")
		return strings.HasSuffix(screen, "standin> deaf\nstandin>") && r.status()[w.PaneID].State == "READY"
	})
	type sent struct {
		res  sendResult
		code int
		errs string
	}
	done := make(chan sent, 1)
	// A person's plain send that is not taken is theirs to follow up: no restart.
	if res, _, _ := r.send(w.PaneID, "hello?"); res.Outcome != "ACK_TIMEOUT" || r.worker("api").Restarts != 0 {
		t.Fatalf("plain send: %+v, restarts %d; want ACK_TIMEOUT and no restart", res, r.worker("api").Restarts)
	}
	go func() {
		res, code, errs := r.send("--envelope", "job-7", w.PaneID, "are you there?")
		done <- sent{res, code, errs}
	}()
	r.waitFor("the registry shows the prompt awaiting its acknowledgement", 30*time.Second, func() bool {
		cur := r.worker("api")
		return cur.Status == "awaiting_ack" && cur.LastTrigger != ""
	})
	got := <-done
	if got.res.Outcome != "ACK_TIMEOUT" || r.worker("api").LastTrigger != got.res.ID {
		t.Fatalf("send to a deaf worker: %+v exit %d %s; last trigger %q", got.res, got.code, got.errs, r.worker("api").LastTrigger)
	}
	r.waitFor("the worker is resumed", 30*time.Second, func() bool { return r.worker("api").Restarts == 1 })
	r.waitFor("the resumed worker is READY", 30*time.Second, func() bool {
		return strings.Contains(r.tmux.Run("capture-pane", "-p", "-t", r.worker("api").PaneID), "resumed the last conversation")
	})
	if ev := r.events("api"); !strings.Contains(ev, "ack-timeout: not taken: restarting it (continuing its conversation, resume 1 of 2)") ||
		strings.Count(ev, "api ack-timeout") != 1 || r.worker("api").Restarts != 1 {
		t.Errorf("want one resume, for the trigger alone; history:\n%s", ev)
	}
}

// TestSupervisorLeavesANewServersPaneAlone: after the tmux server restarts, pane ids
// start again at %0; the pane that inherits a worker's id is a person's, never
// respawned, and the worker starts again in a window of its own.
func TestSupervisorLeavesANewServersPaneAlone(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	w := r.create(project, "--pack", "standin").Worker
	r.stop()
	r.tmux.Server.Run(t.Context(), nil, "kill-server")
	r.waitFor("the old server is gone", 10*time.Second, func() bool {
		_, err := r.tmux.Server.Run(t.Context(), nil, "list-sessions")
		return err != nil
	})
	mine, pid := r.newServerWith(w.PaneID)
	r.start()
	r.waitFor("the worker runs again in a pane of its own", 30*time.Second, func() bool {
		cur := r.worker("api")
		return cur.Restarts == 1 && cur.PaneID != mine && cur.Status == "ready"
	})
	r.checkUntouched(mine, pid)
}

// newServerWith starts a new tmux server on the rig's socket, as a person (or
// tmux-resurrect) would after the old one died: a session "new" with windows running
// sleep until one has the pane id paneID. It returns that pane and its process.
func (r *rig) newServerWith(paneID string) (string, string) {
	r.t.Helper()
	// The old server's last moments can still hold the socket: a start then fails with
	// "server exited unexpectedly", and is tried again.
	var out []byte
	var err error
	if !tmuxtest.Poll(10*time.Second, func() bool {
		start := exec.Command("tmux", "-u", "-L", "test", "-f", "/dev/null", "new-session", "-d", "-s", "new", "exec sleep 100000",
			";", "set-option", "-g", "@paneherd-send-quiet", "0s")
		start.Env = r.tmux.Env()
		out, err = start.CombinedOutput()
		return err == nil
	}) {
		r.t.Fatalf("new server: %v %s", err, out)
	}
	standin, _ := filepath.Abs(filepath.Join("testdata", "standin"))
	r.tmux.Run("set-environment", "-g", "PATH", standin+string(os.PathListSeparator)+os.Getenv("PATH"))
	mine := "%0"
	for i := 0; mine != paneID; i++ {
		if i > 10 {
			r.t.Fatalf("no pane %s in the new server after %d windows", paneID, i)
		}
		mine = r.tmux.NewWindow("new", "victim"+strconv.Itoa(i), "exec sleep 100000")
	}
	return mine, r.tmux.Run("display-message", "-p", "-t", mine, "#{pane_pid}")
}

// checkUntouched fails the test unless the person's pane still runs its own process.
func (r *rig) checkUntouched(pane, pid string) {
	r.t.Helper()
	if now := r.tmux.Run("display-message", "-p", "-t", pane, "#{pane_pid} #{pane_current_command} #{@paneherd-name}"); now != pid+" sleep " {
		r.t.Errorf("the person's pane %s now runs %q (pid, command, name), was %s sleep", pane, now, pid)
	}
}

// TestHealthPromptsWaitForAPersonToStopTyping: while someone types in the worker's
// session (a real client, keys into another pane of its window), no health prompt goes
// out; once they stop, it does.
func TestHealthPromptsWaitForAPersonToStopTyping(t *testing.T) {
	r, project := superviseRig(t)
	r.setOptions("send-quiet", "2s")
	log := filepath.Join(t.TempDir(), "standin.log")
	r.tmux.Run("set-environment", "-g", "STANDIN_LOG", log)
	r.start()
	w := r.create(project, "--pack", "standin", "--health-every", "1s", "--health-prompt", "are you there").Worker
	shell := r.tmux.Split(w.PaneID, "exec cat >/dev/null")
	r.tmux.Run("select-pane", "-t", shell)
	attachViewer(t, r, w.Session)
	prompts := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "are you there")
	}
	// The first prompt may already be on its way: start counting once it is in.
	r.waitFor("a first health prompt", 30*time.Second, func() bool { return prompts() >= 1 })
	typed := time.Now()
	before := prompts()
	for time.Since(typed) < 6*time.Second {
		r.viewer.Run("send-keys", "-t", "view", "-l", "x")
		time.Sleep(200 * time.Millisecond) // a person's typing speed: the test's input, not a wait
	}
	if got := prompts(); got > before+1 {
		t.Errorf("%d health prompts while a person typed; want none (one may have been under way)", got-before)
	}
	if !r.worker(w.Name).PersonActive {
		t.Errorf("the registry does not say a person is active")
	}
	r.waitFor("a health prompt once the person stopped", 30*time.Second, func() bool { return prompts() > before+1 })
}

// TestSupervisorRestartsAWorkerWhoseAgentExited: an agent that draws its own exit while
// its process lingers (EXITED) has exited cleanly: the worker goes offline and, under
// --restart always, is started again, READY.
func TestSupervisorRestartsAWorkerWhoseAgentExited(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	w := r.create(project, "--pack", "standin", "--name", "leaver", "--restart", "always").Worker
	r.waitFor("the worker is READY", 30*time.Second, func() bool {
		cur := r.worker("leaver")
		return cur.Status == "ready" && r.status()[cur.PaneID].State == "READY"
	})
	r.typeLine(w.PaneID, "bye")
	r.waitFor("the worker is restarted", 30*time.Second, func() bool { return r.worker("leaver").Restarts == 1 })
	r.waitFor("the restarted worker is READY", 30*time.Second, func() bool {
		cur := r.worker("leaver")
		return cur.Status == "ready" && r.status()[cur.PaneID].State == "READY"
	})
	if got := r.worker("leaver").Restarts; got != 1 {
		t.Errorf("restarts = %d once READY again; want 1", got)
	}
	if ev := r.events("leaver"); !strings.Contains(ev, "the agent exited") {
		t.Errorf("no exit in the worker's events:\n%s", ev)
	}
}

// TestSupervisorRestartKeepsThePanesPlace: a worker in a stack of panes keeps its room
// over restarts (the new pane takes the old one's place), and one too small to split is
// restarted in a window of its own rather than not at all.
func TestSupervisorRestartKeepsThePanesPlace(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	w := r.create(project, "--pack", "standin", "--name", "mid").Worker
	r.waitFor("the worker is ready", 30*time.Second, func() bool { return r.worker("mid").Status == "ready" })
	// A pane above it and one below: the worker is the middle of three.
	r.tmux.Run("split-window", "-b", "-d", "-t", w.PaneID, "exec sleep 100000")
	r.tmux.Run("split-window", "-d", "-t", w.PaneID, "exec sleep 100000")
	height := func(pane string) string { return r.tmux.Run("display-message", "-p", "-t", pane, "#{pane_height}") }
	before := height(w.PaneID)
	for i := 1; i <= 2; i++ {
		cur := r.worker("mid")
		r.typeLine(cur.PaneID, "crash")
		r.waitFor("the worker is restarted", 30*time.Second, func() bool {
			now := r.worker("mid")
			return now.Restarts == i && now.Status == "ready"
		})
		if now := r.worker("mid"); height(now.PaneID) != before || now.Window != "mid" {
			t.Fatalf("restart %d: the worker's pane %s is %s rows in window %s; want %s rows, in its window", i, now.PaneID, height(now.PaneID), now.Window, before)
		}
	}
	// A third crash: failed (3 within 15 minutes). Continued with its pane too small to
	// split: a window of its own.
	cur := r.worker("mid")
	r.typeLine(cur.PaneID, "crash")
	r.waitFor("the worker is failed", 30*time.Second, func() bool { return r.worker("mid").Status == "failed" })
	r.tmux.Run("resize-pane", "-t", cur.PaneID, "-y", "2")
	if out, errs, code := r.paneherd("workers", "continue", "mid"); code != 0 {
		t.Fatalf("workers continue: exit %d: %s %s", code, out, errs)
	}
	r.waitFor("the worker is restarted in a window of its own", 30*time.Second, func() bool {
		now := r.worker("mid")
		return now.Restarts == 3 && now.Status == "ready" && now.PaneID != cur.PaneID
	})
	now := r.worker("mid")
	if panes := r.tmux.Run("list-panes", "-t", now.PaneID, "-F", "#{pane_id}"); panes != now.PaneID {
		t.Errorf("restarted in a window with panes %q; want its new pane %s alone", panes, now.PaneID)
	}
	if all := r.tmux.Run("list-panes", "-a", "-F", "#{pane_id}"); slices.Contains(strings.Fields(all), cur.PaneID) {
		t.Errorf("the pane too small to split, %s, is still there: %s", cur.PaneID, all)
	}
}
