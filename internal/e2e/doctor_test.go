package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/dbustest"
)

// doctorLine is one line of `paneherd doctor`: status, check name, and the rest (what
// was found, then what to do).
type doctorLine struct{ status, name, text string }

var doctorLineRE = regexp.MustCompile(`^(ok|warn|fail) +(\S+) +(.*)$`)

// doctor runs `paneherd doctor` and returns its lines by check name, and its exit code.
func (r *rig) doctor() (map[string][]doctorLine, int) {
	r.t.Helper()
	out, errs, code := r.paneherd("doctor")
	lines := map[string][]doctorLine{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := doctorLineRE.FindStringSubmatch(l)
		if m == nil {
			r.t.Fatalf("doctor printed a line that is no check: %q\n%s%s", l, out, errs)
		}
		lines[m[2]] = append(lines[m[2]], doctorLine{m[1], m[2], m[3]})
	}
	r.t.Logf("paneherd doctor: exit %d\n%s%s", code, out, errs)
	return lines, code
}

// wantLine checks that the doctor's one line named name has status and says each of
// texts.
func wantLine(t *testing.T, lines map[string][]doctorLine, name, status string, texts ...string) {
	t.Helper()
	got := lines[name]
	if len(got) != 1 {
		t.Errorf("%d %s lines, want 1: %+v", len(got), name, got)
		return
	}
	if got[0].status != status {
		t.Errorf("%s: %s %q, want %s", name, got[0].status, got[0].text, status)
	}
	for _, s := range texts {
		if !strings.Contains(got[0].text, s) {
			t.Errorf("%s: %q does not say %q", name, got[0].text, s)
		}
	}
}

// failing names the checks that failed.
func failing(lines map[string][]doctorLine) []string {
	var names []string
	for name, ls := range lines {
		for _, l := range ls {
			if l.status == "fail" {
				names = append(names, name)
			}
		}
	}
	return names
}

// doctorJSON runs `paneherd doctor --json`.
func (r *rig) doctorJSON() (report struct {
	OK     bool
	Checks []struct{ Status, Name, Found, Fix string }
}, code int) {
	r.t.Helper()
	out, errs, code := r.paneherd("doctor", "--json")
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		r.t.Fatalf("doctor --json: %v\n%s%s", err, out, errs)
	}
	return report, code
}

// withoutBus leaves the test, and the tmux server and daemon it starts, no session bus
// to find: no address, no display, and a runtime directory with no bus socket in it.
func withoutBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
}

// TestDoctorHealthy: tmux, a running daemon, the plugin applied, a desktop bus, hooks for
// Claude Code: every line ok, but Gemini CLI's (set up, without hooks: a warning), and
// exit 0; --json says the same.
func TestDoctorHealthy(t *testing.T) {
	bus := dbustest.Bus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.tmux.Run("set-option", "-g", "status-right", "#{paneherd_status} %H:%M")
	if out, errs, code := r.paneherd("plugin", "apply", "--no-daemon"); code != 0 {
		t.Fatalf("plugin apply: exit %d %s%s", code, out, errs)
	}
	if _, errs, code := r.paneherd("hooks", "install", "claude"); code != 0 {
		t.Fatalf("hooks install claude: exit %d %s", code, errs)
	}
	if err := os.MkdirAll(filepath.Join(r.home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	r.start()

	lines, code := r.doctor()
	if code != 0 {
		t.Errorf("doctor on a healthy server: exit %d, want 0", code)
	}
	wantLine(t, lines, "tmux", "ok", "server running (socket "+r.tmux.Server.Socket+")")
	version, _, _ := r.paneherd("version")
	wantLine(t, lines, "daemon", "ok", fmt.Sprintf("running (pid %d, %s) since ", r.daemon.Process.Pid, strings.TrimSpace(version)),
		"looking through control mode")
	wantLine(t, lines, "log", "ok", filepath.Join(r.home, "state", "paneherd"), "daemon.log (")
	wantLine(t, lines, "database", "ok", "state.db, ")
	if db := lines["database"]; len(db) == 1 && !regexp.MustCompile(`, schema [1-9][0-9]*$`).MatchString(db[0].text) {
		t.Errorf("database: %q does not give the daemon's schema", db[0].text)
	}
	wantLine(t, lines, "options", "ok")
	wantLine(t, lines, "policy", "ok", "off: a person answers every dialog")
	wantLine(t, lines, "status-bar", "ok", "status-right shows the badges (push mode)")
	wantLine(t, lines, "tmux-hooks", "ok", fmt.Sprintf("all %d installed (index %d)", len(hooks.Tmux), hooks.Index))
	wantLine(t, lines, "notify", "ok", "desktop, bus "+bus+" from DBUS_SESSION_BUS_ADDRESS in the daemon's environment, tmux messages when it fails")
	wantLine(t, lines, "packs", "ok", "0 of yours")
	wantLine(t, lines, "claude-hooks", "ok", "installed")
	wantLine(t, lines, "codex-hooks", "ok", "codex is not used here")
	wantLine(t, lines, "gemini-hooks", "warn", "not installed", "paneherd hooks install gemini")

	report, code := r.doctorJSON()
	if code != 0 || !report.OK {
		t.Errorf("doctor --json: exit %d, ok %v; want 0, true", code, report.OK)
	}
	for _, c := range report.Checks {
		if l := lines[c.Name]; len(l) != 1 || l[0].status != c.Status || !strings.HasPrefix(l[0].text, c.Found) {
			t.Errorf("--json says %s %s %q; the text said %+v", c.Status, c.Name, c.Found, l)
		}
	}
	if len(report.Checks) != len(lines) {
		t.Errorf("--json has %d checks, the text %d lines", len(report.Checks), len(lines))
	}
}

// TestDoctorNoDaemon: no daemon ever started, then one stopped: the daemon line fails,
// says why and what to do, and the schema is unknown; exit 1.
func TestDoctorNoDaemon(t *testing.T) {
	withoutBus(t)
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	lines, code := r.doctor()
	if code != 1 {
		t.Errorf("doctor without a daemon: exit %d, want 1", code)
	}
	wantLine(t, lines, "tmux", "ok", "server running")
	wantLine(t, lines, "daemon", "fail", "not running: run 'paneherd start'")
	wantLine(t, lines, "database", "ok", "none yet", "schema unknown (no daemon runs to ask)")
	if got := failing(lines); len(got) != 1 {
		t.Errorf("failing checks %v, want only the daemon", got)
	}
	if report, _ := r.doctorJSON(); report.OK {
		t.Errorf("doctor --json says ok without a daemon")
	}

	r.start()
	r.stop() // SIGTERM: the daemon leaves the stopped mark
	lines, code = r.doctor()
	if code != 1 {
		t.Errorf("doctor after a stop: exit %d, want 1", code)
	}
	wantLine(t, lines, "daemon", "fail", "it was stopped", "run 'paneherd start'")
	wantLine(t, lines, "database", "ok", "state.db, ", "schema unknown")
}

// TestDoctorBrokenUserPack: a user pack that does not load is a failure naming its file
// and line, though the daemon runs on without it; fixed, the line goes.
func TestDoctorBrokenUserPack(t *testing.T) {
	withoutBus(t)
	r := newRig(t)
	dir := filepath.Join(r.home, "config", "paneherd", "packs")
	pack := filepath.Join(dir, "myagent.toml")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	broken := "description = \"my agent\"\n\n[detect]\ncommands = [\"myagent\"]\n\n[[rules]]\nname = \"ready\"\nstate = \"READY\"\nmatch = ['^> (']\n"
	if err := os.WriteFile(pack, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	r.tmux.NewSession("main", "exec sleep 100000")
	r.start()

	lines, code := r.doctor()
	if code != 1 {
		t.Errorf("doctor with a broken pack: exit %d, want 1", code)
	}
	packs := lines["packs"]
	if len(packs) != 2 || packs[0].status != "ok" || packs[1].status != "fail" ||
		!strings.HasPrefix(packs[1].text, pack+":9: ") || !strings.Contains(packs[1].text, "paneherd packs check "+pack) {
		t.Errorf("packs lines %+v; want the count, then a failure at %s:9 saying how to check it", packs, pack)
	}
	if got := failing(lines); len(got) != 1 || got[0] != "packs" {
		t.Errorf("failing checks %v, want only packs", got)
	}

	if err := os.WriteFile(pack, []byte(strings.Replace(broken, "'^> ('", "'^> $'", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, code = r.doctor()
	if code != 0 {
		t.Errorf("doctor with the pack fixed: exit %d, want 0", code)
	}
	wantLine(t, lines, "packs", "ok", "1 of yours from "+dir)
}

// TestDoctorNoBus: no session bus anywhere: the notification line says why and that tmux
// messages stand in (a warning, exit 0), notes a display when one is set, and fails once
// @paneherd-notify-backend is desktop; a bus in tmux's environment is found there.
func TestDoctorNoBus(t *testing.T) {
	withoutBus(t)
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.start()

	lines, code := r.doctor()
	if code != 0 {
		t.Errorf("doctor without a bus: exit %d, want 0 (a warning)", code)
	}
	wantLine(t, lines, "notify", "warn", "no desktop session bus", "bus does not exist",
		"notifications go to tmux messages (display-message) instead", "@paneherd-notify-backend tmux")

	// The session's own environment, where update-environment puts an attaching client's
	// DISPLAY, and which wins over the global one.
	r.tmux.Run("set-environment", "-t", "main", "DISPLAY", ":99")
	lines, _ = r.doctor()
	wantLine(t, lines, "notify", "warn", "DISPLAY=:99 is set, but paneherd never lets D-Bus start a bus")

	r.tmux.Run("set-option", "-g", "@paneherd-notify-backend", "desktop")
	lines, code = r.doctor()
	if code != 1 {
		t.Errorf("doctor without a bus, desktop only: exit %d, want 1", code)
	}
	wantLine(t, lines, "notify", "fail", "with @paneherd-notify-backend desktop no notification is shown", "@paneherd-notify-backend auto")

	bus := dbustest.Bus(t)
	r.tmux.Run("set-environment", "-g", "DBUS_SESSION_BUS_ADDRESS", bus)
	lines, code = r.doctor()
	if code != 0 {
		t.Errorf("doctor with a bus in tmux's environment: exit %d, want 0", code)
	}
	wantLine(t, lines, "notify", "ok", "desktop, bus "+bus+" from DBUS_SESSION_BUS_ADDRESS in tmux's environment (@paneherd-notify-backend desktop: no tmux fallback)")
}
