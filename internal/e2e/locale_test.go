package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestWithoutAUTF8Locale: cron, systemd, `ssh host cmd`, containers and MCP clients run
// paneherd with no LANG, no LC_* and no TMUX. tmux 3.3a sanitises the output of a client
// it takes for one without UTF-8 (its \x1f field separators come back as '_') unless the
// client passes -u: every command works all the same.
func TestWithoutAUTF8Locale(t *testing.T) {
	r := newRig(t)
	r.env = []string{"HOME=" + r.home, "PATH=" + os.Getenv("PATH")}
	t.Cleanup(func() { r.paneherd("stop") })
	pane := r.tmux.NewSession("main", "exec sleep 100000")
	r.tmux.Run("set-option", "-g", "status-right", "#{paneherd_status} ✔")

	for _, args := range [][]string{{"start"}, {"status"}, {"plugin", "apply"}, {"doctor"}, {"restart"}, {"bar"}, {"status", "--json"}} {
		out, errs, code := r.paneherd(args...)
		if code != 0 {
			t.Fatalf("paneherd %s without a UTF-8 locale: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
		if args[0] == "doctor" && strings.Contains(out, "fail") {
			t.Errorf("doctor without a UTF-8 locale reports a failure:\n%s", out)
		}
	}
	if _, ok := r.status()[pane]; !ok {
		t.Errorf("status --json does not show pane %s", pane)
	}
	if got := r.option("status-right"); !strings.Contains(got, "✔") {
		t.Errorf("status-right = %q: plugin apply lost its non-ASCII text", got)
	}
}
