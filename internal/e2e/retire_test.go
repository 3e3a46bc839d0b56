package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc/proctest"
)

// history runs `history TARGET --json` and returns its entries as "PANE KIND DETAIL"
// lines, its exit code and its stderr.
func (r *rig) history(target string) ([]string, int, string) {
	r.t.Helper()
	out, errs, code := r.paneherd("history", target, "--json", "--limit", "0")
	var h struct {
		Entries []struct {
			PaneID       string `json:"pane_id"`
			Kind, Detail string
		}
	}
	json.Unmarshal([]byte(out), &h)
	var lines []string
	for _, e := range h.Entries {
		lines = append(lines, e.PaneID+" "+e.Kind+" "+e.Detail)
	}
	return lines, code, errs
}

// TestHistoryOfARetiredWorker: once a worker is retired, its name and its old pane id
// still find what happened to it; a name nobody ever had is still not found.
func TestHistoryOfARetiredWorker(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	c := r.create(project, "--pack", "standin", "--prompt", "hello there")
	pane := c.Worker.PaneID
	r.waitFor("the worker is ready", 30*time.Second, func() bool { return r.worker("api").Status == "ready" })
	if out, errs, code := r.paneherd("retire", "api"); code != 0 {
		t.Fatalf("retire: exit %d: %s %s", code, out, errs)
	}

	for _, target := range []string{"api", pane} {
		lines, code, errs := r.history(target)
		if code != 0 {
			t.Errorf("history %s after retire: exit %d: %s", target, code, errs)
			continue
		}
		all := strings.Join(lines, "\n")
		for _, want := range []string{" state ", "send t", "api registered", "api retired"} {
			if !strings.Contains(all, want) {
				t.Errorf("history %s lacks %q:\n%s", target, want, all)
			}
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, pane+" ") {
				t.Errorf("history %s shows another pane's entry: %s", target, l)
			}
		}
	}
	if _, code, errs := r.history("never-was"); code != 10 || !strings.Contains(errs, "TARGET_NOT_FOUND") {
		t.Errorf("history never-was: exit %d, %s; want TARGET_NOT_FOUND", code, errs)
	}
}

// TestRetireLeavesNothingBehind: a worker whose CLI started helpers that outlive it (one in
// a session of its own, as Codex's app-server is, one deaf to the hangup, as a nohup'd
// job is) is retired: its pane and every process it started are gone.
func TestRetireLeavesNothingBehind(t *testing.T) {
	r, project := superviseRig(t)
	r.start()
	reaper := proctest.NewReaper(t)
	pids := filepath.Join(r.home, "helpers")
	c := r.create(project, "--pack", "standin", "--", "sh", "-c",
		"setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! >"+pids+"; "+
			"nohup sleep 1001 </dev/null >/dev/null 2>&1 & echo $! >>"+pids+"; exec standin")
	if c.Started.Final_State != "reached" {
		t.Fatalf("create: %+v", c)
	}
	var helpers []int
	r.waitFor("the helpers have started", 10*time.Second, func() bool {
		b, _ := os.ReadFile(pids)
		helpers = nil
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				reaper.Add(pid)
				helpers = append(helpers, pid)
			}
		}
		return len(helpers) == 2
	})
	out, errs, code := r.paneherd("retire", "api")
	if code != 0 {
		t.Fatalf("retire: exit %d: %s %s", code, out, errs)
	}
	if panes := r.tmux.Run("list-panes", "-a", "-F", "#{pane_id}"); strings.Contains(panes, c.Worker.PaneID) {
		t.Errorf("the retired worker's pane %s is still there", c.Worker.PaneID)
	}
	for _, pid := range helpers {
		if running(pid) {
			t.Errorf("process %d the worker started still runs after retire", pid)
		}
	}
	if events := r.events("api"); !strings.Contains(events, "ended 2 processes it left") {
		t.Errorf("the retirement does not say what it ended:\n%s", events)
	}
}
