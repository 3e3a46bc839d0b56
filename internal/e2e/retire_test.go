package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// history runs `history TARGET --json` and returns its entries' kinds and details, and
// the exit code.
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
