package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/agenthooks"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// expect is what a check must say: its status, and text its found and fix contain.
type expect struct {
	status     Status
	found, fix string
}

func (e expect) check(t *testing.T, got Check) {
	t.Helper()
	if got.Status != e.status || !strings.Contains(got.Found, e.found) || !strings.Contains(got.Fix, e.fix) {
		t.Errorf("got %s %q, fix %q; want %s with %q, fix with %q", got.Status, got.Found, got.Fix, e.status, e.found, e.fix)
	}
	if (got.Status == OK) != (got.Fix == "") {
		t.Errorf("%s check with fix %q: only warn and fail say what to do", got.Status, got.Fix)
	}
}

// TestExtraBackendChecks: a line per extra backend, as the daemon built it when it says,
// else as built here from the options: a wrong configuration fails (the backend is left
// out), a backend that says it cannot deliver now warns.
func TestExtraBackendChecks(t *testing.T) {
	ctx := context.Background()
	about := &wire.About{Notify: []wire.BackendStatus{
		{Name: "terminal", Found: "osc777 to 1 client"},
		{Name: "webhook", Error: "webhook: \"ftp://x\" is not an http(s) URL", Unused: true},
		{Name: "sound", Error: "sound: no player found; install pw-play"},
	}}
	checks := Doctor{}.checkExtras(ctx, notify.Config{}, about)
	if len(checks) != 3 || checks[0].Name != "notify-terminal" || checks[1].Name != "notify-webhook" || checks[2].Name != "notify-sound" {
		t.Fatalf("checks = %+v; want one per backend the daemon has", checks)
	}
	expect{OK, "osc777 to 1 client", ""}.check(t, checks[0])
	expect{Fail, "is not an http(s) URL", "fix or unset @paneherd-notify-webhook"}.check(t, checks[1])
	expect{Warn, "no player found", "paneherd notify test"}.check(t, checks[2])

	// An older daemon says nothing of them: built here, from the options.
	cfg := notify.Config{Backend: "auto", Command: "paneherd-test-no-such-program --flag"}
	checks = Doctor{}.checkExtras(ctx, cfg, &wire.About{})
	if len(checks) != 1 || checks[0].Name != "notify-command" {
		t.Fatalf("checks = %+v; want the command backend's line", checks)
	}
	expect{Fail, "command: ", "@paneherd-notify-command"}.check(t, checks[0])
	if checks := (Doctor{}).checkExtras(ctx, notify.Config{Backend: "auto"}, nil); len(checks) != 0 {
		t.Errorf("no extra backend set: checks %+v", checks)
	}
}

func TestVersionCheck(t *testing.T) {
	hung := fmt.Errorf("tmux display-message: %w", context.DeadlineExceeded)
	noServer := fmt.Errorf("tmux display-message: error connecting to /s: %w", tmux.ErrNoServer)
	tests := []struct {
		name           string
		client, server string
		err            error
		running        bool
		want           expect
	}{
		{"running", "3.3a", "3.3a", nil, true, expect{OK, "3.3a, server running (socket /s)", ""}},
		{"no sessions", "3.3a", "3.3a", tmux.ErrNoSessions, true, expect{OK, "server running", ""}},
		{"no server", "3.3a", "", noServer, false, expect{Fail, "3.3a, no server running (socket /s)", "start tmux"}},
		{"hung", "3.3a", "", hung, false, expect{Fail, "did not answer within", "list-sessions"}},
		{"too old", "3.1c", "3.1c", nil, true, expect{Fail, "3.1c", "3.2 or newer"}},
		{"old server", "3.4", "3.1", nil, true, expect{Fail, "client 3.4, server 3.1", "3.2 or newer"}},
		{"upgraded, server not restarted", "3.4", "3.3a", nil, true, expect{Warn, "client 3.4, server 3.3a", "restart it"}},
		{"unreadable", "master", "master", nil, true, expect{Warn, "master", "cannot tell"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := tt.server
			if errors.Is(tt.err, tmux.ErrNoSessions) {
				server = ""
			}
			got, running := versionCheck(tt.client, server, tt.err, "/s")
			if running != tt.running {
				t.Errorf("running = %v, want %v", running, tt.running)
			}
			tt.want.check(t, got)
		})
	}
}

func TestDaemonCheck(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.Local)
	about := wire.About{PID: 42, Started: now.Add(-90 * time.Minute), Observer: "control", Schema: 4, Version: "0.4.0"}
	polling := about
	polling.Observer = "poll"
	older := about
	older.Version = "0.3.0"
	tests := []struct {
		name string
		s    daemonState
		want expect
	}{
		{"no server", daemonState{}, expect{Fail, "no tmux server", "start tmux"}},
		{"a directory of another user's", daemonState{serverUp: true, untrusted: &paths.Untrusted{Path: "/tmp/paneherd-0", Problem: "belongs to uid 65534", Fix: "remove it"}},
			expect{Fail, "its directory /tmp/paneherd-0 belongs to uid 65534", "remove it"}},
		{"never started", daemonState{serverUp: true}, expect{Fail, "not running", "run 'paneherd start'"}},
		{"stopped by a person", daemonState{serverUp: true, stopped: true, ranBefore: true}, expect{Fail, "it was stopped", "run 'paneherd start'"}},
		{"crashed", daemonState{serverUp: true, ranBefore: true, log: file{path: "/l"}}, expect{Fail, "without being stopped (a crash? see /l)", "paneherd start"}},
		{"running", daemonState{serverUp: true, pid: 42, about: about, observer: "control", version: "0.4.0"},
			expect{OK, "running (pid 42, paneherd 0.4.0) since 2025-06-01 10:30:00 (1h30m0s), looking through control mode", ""}},
		{"polling as asked", daemonState{serverUp: true, pid: 42, about: polling, observer: "poll", version: "0.4.0"}, expect{OK, "looking by polling", ""}},
		{"control mode fell back", daemonState{serverUp: true, pid: 42, about: polling, observer: "control", version: "0.4.0"},
			expect{Warn, "looking by polling", "control mode could not attach"}},
		{"an older daemon", daemonState{serverUp: true, pid: 42, about: older, observer: "control", version: "0.4.0"},
			expect{Warn, "running (pid 42, paneherd 0.3.0)", "this is paneherd 0.4.0: run 'paneherd restart' to run this one"}},
		{"a newer version", daemonState{serverUp: true, pid: 42, aboutErr: wire.Errorf(wire.ErrUnknownOp, `unknown question "about"`)},
			expect{Warn, "running (pid 42), a paneherd of another version, which cannot say more", "paneherd restart"}},
		{"a version older than error codes", daemonState{serverUp: true, pid: 42, aboutErr: wire.FromAnswer(wire.Answer{Error: `unknown question "about"`})},
			expect{Warn, "running (pid 42), a paneherd of another version, which cannot say more", "paneherd restart"}},
		{"a version older than error codes, failing", daemonState{serverUp: true, pid: 42, aboutErr: wire.FromAnswer(wire.Answer{Error: "store: schema 9 is newer"}), log: file{path: "/l"}},
			expect{Fail, "not answering: store: schema 9 is newer", "see its log /l"}},
		{"failing in words of a missing question", daemonState{serverUp: true, pid: 42, aboutErr: wire.Errorf(wire.ErrFailed, "unknown question of the disk"), log: file{path: "/l"}},
			expect{Fail, "not answering: unknown question of the disk", "see its log /l"}},
		{"not answering", daemonState{serverUp: true, pid: 42, aboutErr: errors.New("the daemon did not answer in time"), log: file{path: "/l"}},
			expect{Fail, "not answering: the daemon did not answer in time", "see its log /l"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.s.now = now
			tt.want.check(t, tt.s.daemonCheck())
		})
	}
}

func TestLogAndDatabaseChecks(t *testing.T) {
	missing := file{path: "/s/state.db", err: os.ErrNotExist}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.Local)
	tests := []struct {
		name string
		s    daemonState
		log  expect
		db   expect
	}{
		{"nothing yet", daemonState{log: file{path: "/s/daemon.log", err: os.ErrNotExist}, db: missing},
			expect{OK, "/s/daemon.log (none yet)", ""}, expect{OK, "/s/state.db: none yet (the daemon creates it), schema unknown (no daemon runs to ask)", ""}},
		{"daemon says", daemonState{pid: 42, about: wire.About{Schema: 4}, log: file{path: "/s/daemon.log", size: 1536}, db: file{path: "/s/state.db", size: 32 << 10}},
			expect{OK, "/s/daemon.log (1.5 KiB)", ""}, expect{OK, "/s/state.db, 32.0 KiB, schema 4", ""}},
		{"damaged records", daemonState{pid: 42, about: wire.About{Schema: 4, Damaged: 2}, log: file{path: "/l", size: 10}, db: file{path: "/d", size: 10}},
			expect{OK, "/l (10 B)", ""}, expect{Warn, "/d, 10 B, schema 4; 2 damaged records, which history skips", "move the file aside"}},
		{"daemon silent", daemonState{pid: 42, aboutErr: errors.New("hung"), log: file{path: "/l", size: 10}, db: file{path: "/d", size: 10}},
			expect{OK, "/l (10 B)", ""}, expect{OK, "/d, 10 B, schema unknown (the daemon did not say)", ""}},
		{"unreadable", daemonState{log: file{path: "/l", err: os.ErrPermission}, db: file{path: "/d", err: os.ErrPermission}},
			expect{Warn, "permission denied", "permissions"}, expect{Warn, "permission denied", "permissions"}},
		{"write failed", daemonState{pid: 42, now: now, log: file{path: "/l", size: 10}, db: file{path: "/d", size: 10},
			about: wire.About{Schema: 4, Store: &wire.StoreTrouble{Error: "store: apply: write /d: no space left on device", Since: now.Add(-time.Minute), Waiting: 3}}},
			expect{OK, "/l (10 B)", ""},
			expect{Fail, "store: write failed since 2025-06-01 11:59:00 (1m0s; state changes kept in the daemon's memory meanwhile: 3): store: apply: write /d: no space left on device", "free space"}},
		{"write failed for long", daemonState{pid: 42, now: now, log: file{path: "/l", size: 10}, db: file{path: "/d", size: 10},
			about: wire.About{Schema: 4, Store: &wire.StoreTrouble{Error: "store: apply: write /d: no space left on device", Since: now.Add(-time.Hour), Waiting: 500, Dropped: 12}}},
			expect{OK, "/l (10 B)", ""},
			expect{Fail, "store: write failed since 2025-06-01 11:00:00 (1h0m0s; state changes kept in the daemon's memory meanwhile: 500; dropped: 12, the oldest beyond a pane's history limit): store: apply", "free space"}},
		{"read-only", daemonState{pid: 42, now: now, log: file{path: "/l", size: 10}, db: file{path: "/d", size: 10},
			about: wire.About{Schema: 4, Store: &wire.StoreTrouble{ReadOnly: "opened read-only: open /d: operation not permitted"}}},
			expect{OK, "/l (10 B)", ""},
			expect{Fail, "store: write failed: /d opened read-only: open /d: operation not permitted", "paneherd restart"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.log.check(t, tt.s.logCheck())
			tt.db.check(t, tt.s.databaseCheck())
		})
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestOptionChecks(t *testing.T) {
	ok := optionChecks(nil)
	if len(ok) != 1 {
		t.Fatalf("no problems: %d lines, want 1", len(ok))
	}
	expect{OK, "valid", ""}.check(t, ok[0])
	bad := optionChecks([]string{`@paneherd-tick "soon" is not a duration (like 1s or 500ms); using "1s"`, `@paneherd-show "x" is not one of all, active; using "all"`})
	if len(bad) != 2 {
		t.Fatalf("two problems: %d lines, want 2", len(bad))
	}
	expect{Fail, `@paneherd-tick "soon"`, "paneherd plugin apply"}.check(t, bad[0])
	expect{Fail, `@paneherd-show "x"`, "set a valid value"}.check(t, bad[1])
}

func TestStatusCheck(t *testing.T) {
	const segment = "#{?#{e|<|:%s,#{@paneherd_lease}},#{@paneherd_status},…}"
	tests := []struct {
		name, left, right string
		want              expect
	}{
		{"applied", "[#S]", segment + " %H:%M", expect{OK, "status-right shows the badges (push mode)", ""}},
		{"applied left", segment, "%H:%M", expect{OK, "status-left shows", ""}},
		{"not applied", "", "#{paneherd_status} %H:%M", expect{Fail, "status-right still holds the raw #{paneherd_status}", "paneherd plugin apply"}},
		{"building", "", "#{@paneherd_build}#{paneherd_status} %H:%M", expect{Fail, "status-right waits for the plugin's build", "build.log"}},
		{"half applied", "#{paneherd_status}", segment, expect{Fail, "status-left still holds the raw", "paneherd plugin apply"}},
		{"another binary", "", "#('/old/paneherd' -S '/s' bar --badges)", expect{Warn, "status-right holds a paneherd segment for another binary", "paneherd plugin apply"}},
		{"no badges", "[#S]", "%H:%M", expect{Warn, "no paneherd badges", "put #{paneherd_status} in one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, statusCheck(tt.left, tt.right, segment, "push"))
		})
	}
}

func TestHooksCheck(t *testing.T) {
	want := []wantHook{
		{"after-new-window[77]", `run-shell -b "'/b/paneherd' -S '/s' hook after-new-window #{q:window_id}"`},
		{"pane-died[77]", `run-shell -b "'/b/paneherd' -S '/s' hook pane-died #{q:hook_pane}"`},
	}
	global := "after-bind-key\nafter-new-window[3] set-option -g @user-hook ran\nafter-new-window[77] " + want[0].command + "\nclient-attached\n"
	window := "pane-died[77] " + want[1].command + "\npane-exited\n"
	tests := []struct {
		name  string
		shown string
		want  expect
	}{
		{"all", global + window, expect{OK, "all 2 installed (index 77), running this paneherd", ""}},
		{"none", "after-bind-key\nafter-new-window[3] set-option -g @user-hook ran\npane-died\n", expect{Warn, "none installed", "paneherd plugin apply"}},
		{"window hooks missing", global + "pane-died\n", expect{Warn, "1 of 2 missing: pane-died[77]", "paneherd plugin apply"}},
		{"another binary", strings.ReplaceAll(global+window, "/b/paneherd", "/old/paneherd"), expect{Warn, "2 of 2 run another paneherd binary", "paneherd plugin apply"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, hooksCheck(tt.shown, want))
		})
	}
}

func TestNotifyCheck(t *testing.T) {
	noBus := fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is unset in paneherd's environment and in tmux's, and /r/bus does not exist", notify.ErrNoDesktop)
	found := notify.FoundBus{Addr: "unix:path=/r/bus", From: "DBUS_SESSION_BUS_ADDRESS in tmux's environment"}
	tests := []struct {
		name             string
		backend          string
		found            notify.FoundBus
		err              error
		missing, display string
		want             expect
	}{
		{"off", "off", notify.FoundBus{}, nil, "", "", expect{OK, "paneherd notifies no one", ""}},
		{"tmux chosen", "tmux", notify.FoundBus{}, nil, "", "", expect{OK, "tmux messages", ""}},
		{"bus found", "auto", found, nil, "", "", expect{OK, "desktop, bus unix:path=/r/bus from DBUS_SESSION_BUS_ADDRESS in tmux's environment, tmux messages when it fails", ""}},
		{"bus found, desktop only", "desktop", found, nil, "", "", expect{OK, "no tmux fallback", ""}},
		{"no bus", "auto", notify.FoundBus{}, noBus, "", "", expect{Warn, "/r/bus does not exist; notifications go to tmux messages (display-message) instead", "@paneherd-notify-backend tmux"}},
		{"no bus but a display", "auto", notify.FoundBus{}, noBus, "", "DISPLAY=:0", expect{Warn, "DISPLAY=:0 is set, but paneherd never lets D-Bus start a bus", "attach a tmux client"}},
		{"no bus, desktop only", "desktop", notify.FoundBus{}, noBus, "", "", expect{Fail, "no notification is shown", "@paneherd-notify-backend auto"}},
		{"stale address", "auto", found, nil, "/r/bus", "", expect{Warn, "names /r/bus, which does not exist", "attach a tmux client"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, notifyCheck(tt.backend, tt.found, tt.err, tt.missing, tt.display))
		})
	}
}

func TestMissingSocket(t *testing.T) {
	there := filepath.Join(t.TempDir(), "bus")
	if err := os.WriteFile(there, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	for addr, want := range map[string]string{
		"unix:path=" + there:                         "",
		"unix:path=" + gone:                          gone,
		"unix:path=" + gone + ",guid=abc;tcp:host=x": gone,
		"unix:abstract=/tmp/dbus-x,guid=1":           "",
		"tcp:host=localhost,port=1":                  "",
	} {
		if got := missingSocket(addr); got != want {
			t.Errorf("missingSocket(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestPackChecks(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "mine.toml")
	if err := os.WriteFile(broken, []byte("description = \"mine\"\n\n[[rules]]\nname = \"x\"\nstate = \"READY\"\nmatch = ['(']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checks := packChecks(packs.Load(dir), dir)
	builtin := len(packs.BuiltinNames())
	if len(checks) != 2 {
		t.Fatalf("%d lines, want the count and the broken pack: %+v", len(checks), checks)
	}
	expect{OK, fmt.Sprintf("%d loaded: %d builtin, 0 of yours from %s", builtin, builtin, dir), ""}.check(t, checks[0])
	expect{Fail, broken + ":6: ", "paneherd packs check " + broken}.check(t, checks[1])

	good := filepath.Join(dir, "mine.toml")
	if err := os.WriteFile(good, []byte("[detect]\ncommands = [\"mine\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checks = packChecks(packs.Load(dir), dir)
	if len(checks) != 1 {
		t.Fatalf("%d lines with a good pack, want 1: %+v", len(checks), checks)
	}
	expect{OK, fmt.Sprintf("%d loaded: %d builtin, 1 of yours", builtin+1, builtin), ""}.check(t, checks[0])
}

func TestPackProblem(t *testing.T) {
	expect{Fail, "a builtin pack does not load", "report it"}.check(t, packProblem(&packs.Error{File: packs.SourceBuiltin, Msg: "bad"}))
	expect{Fail, "/p/x.toml: unreadable (this pack is not used", "paneherd restart"}.check(t, packProblem(&packs.Error{File: "/p/x.toml", Msg: "unreadable"}))
	expect{Fail, "glob", "packs directory"}.check(t, packProblem(errors.New("glob")))
}

func TestAgentHookCheck(t *testing.T) {
	file := "/h/.claude/settings.json"
	tests := []struct {
		name      string
		s         agenthooks.Status
		err       error
		dirExists bool
		want      expect
	}{
		{"installed", agenthooks.Status{File: file, Installed: true, Detail: "installed (4 hooks)"}, nil, true, expect{OK, file + ": installed (4 hooks)", ""}},
		{"not used here", agenthooks.Status{File: file, Detail: "not installed (no settings file yet)"}, nil, false, expect{OK, "no /h/.claude, so claude is not used here", ""}},
		{"not installed", agenthooks.Status{File: file, Detail: "not installed"}, nil, true, expect{Warn, file + ": not installed", "paneherd hooks install claude"}},
		{"unreadable", agenthooks.Status{File: file}, errors.New(file + ": cannot read the agent's settings"), true, expect{Warn, "cannot read", "fix the file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := agentHookCheck("claude", tt.s, tt.err, tt.dirExists)
			if got.Name != "claude-hooks" {
				t.Errorf("name %q", got.Name)
			}
			tt.want.check(t, got)
		})
	}
}

func TestReport(t *testing.T) {
	tests := []struct {
		name   string
		checks []Check
		ok     bool
		text   string
	}{
		{"warnings pass", []Check{ok("tmux", "3.3a"), warn("notify", "no bus", "attach")}, true,
			"ok    tmux         3.3a\nwarn  notify       no bus: attach\n"},
		{"a failure fails", []Check{ok("tmux", "3.3a"), fail("daemon", "not running", "run 'paneherd start'")}, false,
			"ok    tmux         3.3a\nfail  daemon       not running: run 'paneherd start'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReport(tt.checks)
			if r.OK != tt.ok {
				t.Errorf("OK = %v, want %v", r.OK, tt.ok)
			}
			var b bytes.Buffer
			if err := r.WriteText(&b); err != nil || b.String() != tt.text {
				t.Errorf("text =\n%s(%v), want\n%s", b.String(), err, tt.text)
			}
		})
	}
}

// TestHostCheck: a host up is ok; one stale or connecting warns; one unreachable or
// whose paneherd speaks another protocol fails, in one line, saying which side to update.
func TestHostCheck(t *testing.T) {
	for name, c := range map[string]struct {
		host  wire.Host
		panes int
		want  expect
	}{
		"up":         {wire.Host{Name: "devbox", State: wire.HostUp, Version: "0.4.0"}, 3, expect{OK, "up, paneherd 0.4.0, 3 panes", ""}},
		"connecting": {wire.Host{Name: "devbox", State: wire.HostConnecting}, 0, expect{Warn, "connecting", "ssh gives up after 10 s"}},
		"stale":      {wire.Host{Name: "devbox", State: wire.HostStale}, 2, expect{Warn, "stale", "ssh notices within 20 s"}},
		"unreachable": {wire.Host{Name: "devbox", State: wire.HostUnreachable, Why: "the host key of devbox is not known"}, 0,
			expect{Fail, "unreachable: the host key of devbox is not known", "1 s to 1 min apart"}},
		"too old": {wire.Host{Name: "devbox", State: wire.HostIncompatible, Why: "paneherd 0.3 too old"}, 0,
			expect{Fail, "paneherd 0.3 too old", "update paneherd on the host"}},
		"too new": {wire.Host{Name: "devbox", State: wire.HostIncompatible, Why: "paneherd 0.9 too new"}, 0,
			expect{Fail, "paneherd 0.9 too new", "update paneherd here"}},
	} {
		t.Run(name, func(t *testing.T) {
			got := hostCheck(c.host, c.panes)
			c.want.check(t, got)
			if got.Name != "host:devbox" {
				t.Errorf("name %q", got.Name)
			}
		})
	}
}

// TestPolicyCheck: off; on or dry-run with the rules of a file that loads; on with a
// broken file, which answers nothing (a failure naming file and line); on without one.
func TestPolicyCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	broken := filepath.Join(dir, "broken.toml")
	os.WriteFile(good, []byte("[[rules]]\nname = \"tests\"\naction = \"approve\"\ncommands = [\"npm test\"]\n\n[[rules]]\nname = \"push\"\naction = \"deny\"\ncommands = [\"git push*\"]\n"), 0o644)
	os.WriteFile(broken, []byte("[[rules]]\nname = \"tests\"\naction = \"approve\"\ncommands = [\"npm test\"\n"), 0o644)
	tests := []struct {
		name, mode, path string
		want             expect
	}{
		{"off", "off", broken, expect{OK, "off", ""}},
		{"on", "on", good, expect{OK, "on with 2 rules from " + good, ""}},
		{"dry-run", "dry-run", good, expect{OK, "dry-run with 2 rules from " + good, ""}},
		{"broken", "on", broken, expect{Fail, broken + ":4: ", "paneherd policy check"}},
		{"no file", "on", filepath.Join(dir, "none.toml"), expect{Warn, "on, but there is no " + filepath.Join(dir, "none.toml"), "@paneherd-policy off"}},
		{"no home", "dry-run", "", expect{Warn, "no policy file", "@paneherd-policy off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policyCheck(tt.mode, tt.path)
			tt.want.check(t, got)
			if tt.mode != "off" && got.Status != OK && !strings.Contains(got.Found, "nothing is answered automatically") {
				t.Errorf("%q does not say nothing is answered automatically", got.Found)
			}
		})
	}
}
