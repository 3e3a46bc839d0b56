package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runBinary runs paneherd with no tmux server in reach and stdin from the given bytes.
func runBinary(t *testing.T, stdin []byte, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// isolatedEnv is an environment with temp HOME/XDG dirs and no tmux server.
func isolatedEnv(t *testing.T) ([]string, string) {
	home := t.TempDir()
	tmpdir, err := os.MkdirTemp("/tmp", "ph")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmpdir) })
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMUX_TMPDIR=" + tmpdir,
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
	}, home
}

func TestCommandLineErrors(t *testing.T) {
	env, home := isolatedEnv(t)
	unreadable := filepath.Join(home, "secret.txt")
	os.WriteFile(unreadable, []byte("x"), 0o000)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", nil, 2, "no command given"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown global flag", []string{"-X", "status"}, 2, "flag provided but not defined"},
		{"unknown command flag", []string{"status", "--bogus"}, 2, "flag provided but not defined"},
		{"missing file", []string{"classify", filepath.Join(home, "nope.txt")}, 1, "no such file"},
		{"classify needs a file", []string{"classify"}, 2, "classify takes one FILE"},
		{"unknown pack", []string{"classify", "--pack", "nosuch", "-"}, 1, `unknown pack "nosuch"`},
		{"no tmux server", []string{"-L", "nothing-here", "watch"}, 1, "cannot reach tmux server"},
		{"bad tick", []string{"-L", "nothing-here", "watch", "--tick", "1ms"}, 2, "too short"},
		{"packs without subcommand", []string{"packs"}, 2, "packs needs a subcommand"},
		{"version flag", []string{"--version"}, 0, ""},
		{"status with no tmux server", []string{"-L", "nothing-here", "status"}, 1, "no tmux server runs"},
		{"start with no tmux server", []string{"-L", "nothing-here", "start"}, 1, "no tmux server runs"},
		{"stop with no tmux server", []string{"-L", "nothing-here", "stop"}, 0, ""},
		// No daemon is an error (1) for every command; an unknown target is 10.
		{"send with no daemon", []string{"-L", "nothing-here", "send", "x", "hi"}, 1, "no paneherd daemon"},
		{"wait with no daemon", []string{"-L", "nothing-here", "wait", "x"}, 1, "no paneherd daemon"},
		// A bad envelope id is refused before the daemon is asked.
		{"send with a bad envelope", []string{"-L", "nothing-here", "send", "--envelope", "a b", "x", "hi"}, 2, `--envelope "a b"`},
		{"approve with no daemon", []string{"-L", "nothing-here", "approve", "x"}, 1, "no paneherd daemon"},
		{"history with no daemon", []string{"-L", "nothing-here", "history", "x"}, 1, "no paneherd daemon"},
		{"metrics with no daemon", []string{"-L", "nothing-here", "metrics"}, 1, "no paneherd daemon"},
		{"history with a negative limit", []string{"-L", "nothing-here", "history", "--limit", "-5"}, 2, "--limit -5"},
	}
	if os.Geteuid() != 0 { // root reads a mode-000 file anyway
		tests = append(tests, struct {
			name     string
			args     []string
			wantCode int
			wantErr  string
		}{"unreadable file", []string{"classify", unreadable}, 1, "permission denied"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runBinary(t, nil, env, tt.args...)
			if code != tt.wantCode || !strings.Contains(errs, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tt.wantCode, tt.wantErr)
			}
			if strings.Contains(errs, "goroutine") || strings.Contains(out, "panic") {
				t.Errorf("a person saw a Go panic: %s", errs)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 0 && tt.wantCode == 1 {
				t.Errorf("an error should be one line, got:\n%s", errs)
			}
		})
	}
	out, _, code := runBinary(t, nil, env, "-h")
	if code != 0 || !strings.Contains(out, "usage: paneherd") {
		t.Errorf("-h: exit %d, %q", code, out)
	}
	if out, _, code := runBinary(t, nil, env, "--version"); code != 0 || !strings.HasPrefix(out, "paneherd ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	// Commands about a server that does not exist leave nothing of paneherd's behind.
	left, _ := filepath.Glob(filepath.Join(home, "state", "*", "*"))
	more, _ := filepath.Glob(filepath.Join(envValue(env, "TMUX_TMPDIR"), "*", "*.paneherd"))
	if len(left)+len(more) > 0 {
		t.Errorf("directories left behind for a server that does not exist: %v %v", left, more)
	}
}

func TestClassifyAnyInput(t *testing.T) {
	env, _ := isolatedEnv(t)
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(i*7 + i/13)
	}
	huge := bytes.Repeat([]byte("line of output that goes on and on\n"), 200_000)
	huge = append(huge, []byte("user@devbox:~$ \n")...)
	for name, input := range map[string][]byte{"binary garbage": garbage, "huge screen": huge, "empty": nil} {
		t.Run(name, func(t *testing.T) {
			out, errs, code := runBinary(t, input, env, "classify", "--json", "-")
			var r struct{ State, Pack, Rule, Summary string }
			if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.State == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
	out, _, _ := runBinary(t, huge, env, "classify", "--pack", "shell", "-")
	if !strings.HasPrefix(out, "READY\n") {
		t.Errorf("a huge screen ending in a prompt: %q", out)
	}
}

func TestClassifyFixtureFromFile(t *testing.T) {
	env, _ := isolatedEnv(t)
	out, errs, code := runBinary(t, nil, env, "classify", "--json", fixture(t, "codex/06-NEEDS_CONFIRMATION-run-command-approval.ansi"))
	var r struct{ State, Pack, Rule, Summary string }
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if r.State != "NEEDS_CONFIRMATION" || r.Pack != "codex" || r.Rule == "" {
		t.Errorf("classify = %+v", r)
	}
	out, _, _ = runBinary(t, nil, env, "classify", fixture(t, "claude/07-BUSY-streaming-answer.txt"), "--pack", "claude")
	if !strings.HasPrefix(out, "BUSY\npack:    claude\nrule:") {
		t.Errorf("plain output:\n%s", out)
	}
}

func TestUserPacks(t *testing.T) {
	env, home := isolatedEnv(t)
	dir := filepath.Join(home, "config", "paneherd", "packs")
	os.MkdirAll(dir, 0o755)
	bad := filepath.Join(dir, "broken.toml")
	os.WriteFile(bad, []byte("description = \"x\"\n\n[[rules]]\nname = \"r\"\nstate = \"BUSY\"\nmatch = 'unclosed('\n"), 0o644)
	good := filepath.Join(dir, "claude.toml")
	os.WriteFile(good, []byte("description = \"my claude\"\n[[rules]]\nname = \"mine\"\nstate = \"READY\"\nmatch = 'hello'\n"), 0o644)

	_, errs, code := runBinary(t, nil, env, "packs", "check", bad)
	if code != 1 || !strings.Contains(errs, bad+":6:") || !strings.Contains(errs, "unclosed(") {
		t.Errorf("packs check on a bad regex: exit %d, %q; want the file and line 6", code, errs)
	}
	out, _, code := runBinary(t, nil, env, "packs", "check", good)
	if code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("packs check on a good pack: exit %d, %q", code, out)
	}
	out, errs, code = runBinary(t, nil, env, "packs", "list")
	if code != 0 || !strings.Contains(out, "codex") || !strings.Contains(out, good) || !strings.Contains(errs, bad+":6:") {
		t.Errorf("packs list: exit %d\n%s\n%s", code, out, errs)
	}
	out, _, _ = runBinary(t, []byte("hello\n"), env, "classify", "--pack", "claude", "-")
	if !strings.HasPrefix(out, "READY\npack:    claude\nrule:    mine") {
		t.Errorf("the user's claude pack did not replace the builtin: %q", out)
	}
	out, _, code = runBinary(t, nil, env, "packs", "show", "codex")
	if code != 0 || !strings.Contains(out, "[[rules]]") {
		t.Errorf("packs show codex: exit %d, %q", code, out)
	}
}
