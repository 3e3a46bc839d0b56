package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCreateWaitsOutAFirstStart: Codex drawn as it really starts the first time in a
// folder it does not trust (its composer up for 2 s before its session, then its trust
// dialog): create ends needs_confirmation with the prompt queued, not READY with the
// prompt typed into a CLI still starting; approve answers the trust dialog with the
// pack's key; the queued prompt goes in once Codex is READY.
func TestCreateWaitsOutAFirstStart(t *testing.T) {
	r, project := superviseRig(t)
	r.tmux.Run("set-option", "-g", "default-size", "120x40")
	log := filepath.Join(r.home, "standin.log")
	r.tmux.Run("set-environment", "-g", "STANDIN_LOG", log)
	screens, err := filepath.Abs(filepath.Join("..", "..", "packs", "testdata", "fixtures", "codex"))
	if err != nil {
		t.Fatal(err)
	}
	r.start()

	out, errs, code := r.paneherd("create", "--json", project, "--name", "cx", "--pack", "codex", "--prompt", "hello there",
		"--", "firstrun",
		filepath.Join(screens, "42-BUSY-first-start-composer-drawn-no-session-yet.txt"),
		filepath.Join(screens, "40-NEEDS_CONFIRMATION-trust-folder-dialog.txt"),
		filepath.Join(screens, "45-READY-welcome-after-trust-accepted.txt"))
	var c created
	json.Unmarshal([]byte(out), &c)
	if code != 20 || c.Started.Final_State != "needs_confirmation" || c.Prompt == nil || c.Prompt.Outcome != "QUEUED" {
		r.dump()
		t.Fatalf("create: exit %d, %+v %+v: %s; want needs_confirmation (20), the prompt queued", code, c.Started, c.Prompt, errs)
	}

	out, errs, code = r.paneherd("approve", "cx")
	if code != 0 || !strings.Contains(out, "ANSWERED") {
		r.dump()
		t.Fatalf("approve cx: exit %d: %s %s", code, out, errs)
	}
	r.waitFor("the queued prompt reaches Codex", 30*time.Second, func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "typed hello there")
	})
	if b, _ := os.ReadFile(log); !strings.HasPrefix(string(b), "dialog got \\r\n") {
		t.Errorf("the trust dialog got other keys than Enter first:\n%s", b)
	}
}
