package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hostileArgs are words a shell would do something with, were they not quoted.
var hostileArgs = []string{
	"plain", "a;touch semicolon", "$(touch dollar)", "`touch backtick`", "'", `"`, `\`, `\\`, `\'`, `'\''`,
	"two\nlines", "trailing newline\n", "*", "?", "[ab]", "{a,b}", "~", "~root", "-n", "--", "-e",
	"", " ", "\t", "ünï😀 καλά", "$HOME", "${HOME}", "%self", "=true", "a=b", "!!", "#hash", "a|b>c<d&e",
	"(sub)", "'unclosed", `"unclosed`, "\x01\x7f", "\xff\xfe", `fish\'s \\ escapes`, "%%", "^caret",
}

// fakePaneherd is a paneherd that writes each argument, then stdin, NUL-terminated.
const fakePaneherd = "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\000' \"$a\"; done\ncat\n"

// TestRemoteLineArrivesLiterallyInEveryShell runs the line ssh sends through each login
// shell a host may have, as sshd does ($SHELL -c LINE): every argument reaches paneherd
// byte for byte, nothing in them runs, and the launcher finds paneherd in PATH or, when
// PATH lacks it, in ~/.local/bin.
func TestRemoteLineArrivesLiterallyInEveryShell(t *testing.T) {
	line := remoteLine(hostileArgs)
	for _, shell := range []string{"sh", "bash", "dash", "zsh", "fish"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s is not installed: not checked", shell)
			continue
		}
		for _, where := range []string{"PATH", "~/.local/bin"} {
			t.Run(shell+" "+where, func(t *testing.T) {
				dir, env := fakeRemote(t, where)
				cmd := exec.Command(path, "-c", line)
				cmd.Dir, cmd.Env = dir, env
				cmd.Stdin = strings.NewReader("the prompt\n")
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%s -c LINE: %v: %s", shell, err, stderrOf(err))
				}
				mark := startMark + "\n"
				if !strings.HasPrefix(string(out), mark) {
					t.Fatalf("%s: no start mark: %q", shell, out)
				}
				got := strings.Split(strings.TrimPrefix(string(out), mark), "\x00")
				want := append(append([]string(nil), hostileArgs...), "the prompt\n")
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: paneherd got\n%q\nwant\n%q", shell, got, want)
				}
				if left, _ := os.ReadDir(dir); len(left) != 0 {
					t.Errorf("%s: something ran: %s holds %v", shell, dir, left)
				}
			})
		}
	}
}

// fakeRemote makes a HOME with fakePaneherd where the test says, and an empty working
// directory, which stays empty unless an argument ran as a command.
func fakeRemote(t *testing.T, where string) (string, []string) {
	t.Helper()
	home, dir := t.TempDir(), t.TempDir()
	bin := filepath.Join(home, "bin")
	path := bin + ":/usr/bin:/bin"
	if where == "~/.local/bin" {
		bin, path = filepath.Join(home, ".local", "bin"), "/usr/bin:/bin"
	}
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "paneherd"), []byte(fakePaneherd), 0o700); err != nil {
		t.Fatal(err)
	}
	// XDG_CONFIG_HOME: fish writes its own files there (and HOME's .config otherwise).
	return dir, []string{"HOME=" + home, "PATH=" + path, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "LC_ALL=C.UTF-8"}
}

func stderrOf(err error) string {
	if exit, ok := err.(*exec.ExitError); ok {
		return string(exit.Stderr)
	}
	return ""
}

// TestNoPaneherdOnTheHost: the launcher says so and exits its own code.
func TestNoPaneherdOnTheHost(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	cmd := exec.Command("sh", "-c", remoteLine([]string{"version"}))
	cmd.Dir, cmd.Env = dir, []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != noPaneherdCode || len(out) != 0 || !strings.HasPrefix(string(exit.Stderr), noPaneherd) {
		t.Fatalf("got %v, stdout %q, stderr %q", err, out, stderrOf(err))
	}
}

func TestQuoteLeavesPlainWordsAlone(t *testing.T) {
	for arg, want := range map[string]string{
		"follow": "follow", "--json": "--json", "work:1.2": "work:1.2", "%3": "'%3'", "": "''",
		"a b": "'a b'", "it's": `'it'\''s'`, `a\b`: `'a'\\'b'`, "=x": "'=x'", "--x=y": "--x=y",
	} {
		if got := Quote(arg); got != want {
			t.Errorf("Quote(%q) = %s, want %s", arg, got, want)
		}
	}
}
