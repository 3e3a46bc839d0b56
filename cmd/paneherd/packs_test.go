package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/packs"
)

// packsEnv is an env whose user packs live in a fresh directory, and that directory.
func packsEnv(t *testing.T) (*env, string) {
	t.Helper()
	config := t.TempDir()
	dir := filepath.Join(config, "paneherd", "packs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return config
		}
		return ""
	}
	return &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: getenv}, dir
}

// runWith runs paneherd with e, its stdout being w, and returns the exit code and stderr.
func runWith(e *env, w io.Writer, args ...string) (int, string) {
	var stderr bytes.Buffer
	e.stdout, e.stderr = w, &stderr
	code := run(context.Background(), args, e)
	return code, stderr.String()
}

// docs/packs.md's recipe, with stdout redirected as a shell does it: the shell creates the
// file, empty, before paneherd reads the user packs.
func TestPacksShowIntoTheUserDir(t *testing.T) {
	for _, args := range [][]string{{"packs", "show", "--builtin", "claude"}, {"packs", "show", "claude"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			e, dir := packsEnv(t)
			path := filepath.Join(dir, "claude.toml")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			code, stderr := runWith(e, f, args...)
			f.Close()
			builtin, _ := packs.Builtin("claude")
			if got, _ := os.ReadFile(path); code != 0 || !bytes.Equal(got, builtin) {
				t.Fatalf("exit %d, %d bytes written, want the builtin's %d; stderr %q", code, len(got), len(builtin), stderr)
			}
			if args[2] == "--builtin" && stderr != "" {
				t.Errorf("stderr %q, want nothing: the user dir is not read", stderr)
			}
			if args[2] == "claude" && !strings.Contains(stderr, path+": empty file") {
				t.Errorf("stderr %q, want the empty file named", stderr)
			}
			p, err := packs.Load(dir).Get("claude")
			if err != nil || p.Source != path || len(p.Rules) == 0 {
				t.Errorf("after the recipe the claude pack is %v, %v; want the copy in force", p, err)
			}
		})
	}
}

func TestPacksCheckEmptyFile(t *testing.T) {
	e, dir := packsEnv(t)
	path := filepath.Join(dir, "claude.toml")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runWith(e, io.Discard, "packs", "check", path)
	want := "paneherd packs show --builtin claude > " + path
	if code != exitError || !strings.Contains(stderr, path+": empty file") || !strings.Contains(stderr, want) {
		t.Errorf("packs check on an empty file: exit %d, %q; want 1, the file and %q", code, stderr, want)
	}
}

func TestPacksCommandLine(t *testing.T) {
	tests := []struct {
		args        []string
		code        int
		stdout, err string
	}{
		{[]string{"packs", "show", "--builtin", "nosuch"}, exitError, "", `no builtin of that name (builtins: claude, codex`},
		{[]string{"packs", "show", "claude", "-h"}, exitOK, "usage: paneherd packs", ""},
		{[]string{"packs", "check", "x.toml", "--help"}, exitOK, "usage: paneherd packs", ""},
		{[]string{"packs", "list", "--builtin"}, exitUsage, "", "--builtin is for packs show"},
		{[]string{"packs", "show", "--nosuch", "claude"}, exitUsage, "", "flag provided but not defined: -nosuch"},
		{[]string{"packs", "shwo", "claude", "-h"}, exitUsage, "", `unknown packs subcommand "shwo"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e, _ := packsEnv(t)
			var stdout bytes.Buffer
			code, stderr := runWith(e, &stdout, tt.args...)
			if code != tt.code || !strings.HasPrefix(stdout.String(), tt.stdout) || !strings.Contains(stderr, tt.err) {
				t.Errorf("exit %d, stdout %.40q, stderr %q; want %d, %q and %q", code, stdout.String(), stderr, tt.code, tt.stdout, tt.err)
			}
		})
	}
}
