package proc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTree is a process table and an install tree in a temporary directory: root/proc/PID
// with exe and cwd links, root/lib/node_modules/... with packages.
type fakeTree struct {
	t    *testing.T
	root string
}

func newFakeTree(t *testing.T) fakeTree {
	return fakeTree{t: t, root: t.TempDir()}
}

// file writes content at rel (under root) and returns its path.
func (f fakeTree) file(rel, content string) string {
	f.t.Helper()
	path := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		f.t.Fatal(err)
	}
	return path
}

func (f fakeTree) link(target, rel string) string {
	f.t.Helper()
	path := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		f.t.Fatal(err)
	}
	return path
}

// process makes /proc/PID with its exe and cwd links.
func (f fakeTree) process(pid, exe, cwd string) {
	f.link(exe, "proc/"+pid+"/exe")
	f.link(cwd, "proc/"+pid+"/cwd")
}

func (f fakeTree) version(pid int, args ...string) string {
	return versionIn(filepath.Join(f.root, "proc"), os.Geteuid(), Process{PID: pid, Args: args})
}

func TestVersionOfANodeScriptThroughItsBinLink(t *testing.T) {
	f := newFakeTree(t)
	f.file("lib/node_modules/@openai/codex/package.json", `{"name": "@openai/codex", "version": "0.169.0"}`)
	script := f.file("lib/node_modules/@openai/codex/bin/codex.js", "")
	bin := f.link(script, "lib/node_modules/.bin/codex")
	f.process("7", "/usr/bin/node", f.root)
	if got := f.version(7, "node", bin, "--no-daemon"); got != "0.169.0" {
		t.Errorf("codex under node: %q, want 0.169.0", got)
	}
	// Gemini's child node takes options before its script.
	f.file("lib/node_modules/@google/gemini-cli/package.json", `{"version": "0.61.0", "bin": {"gemini": "bundle/gemini.js"}}`)
	gemini := f.file("lib/node_modules/@google/gemini-cli/bundle/gemini.js", "")
	f.process("8", "/usr/bin/node", f.root)
	if got := f.version(8, "/usr/bin/node", "--max-old-space-size=12052", gemini); got != "0.61.0" {
		t.Errorf("gemini under node with an option: %q, want 0.61.0", got)
	}
}

func TestVersionOfANodeScriptRelativeToTheProcessDirectory(t *testing.T) {
	f := newFakeTree(t)
	f.file("app/node_modules/@qwen-code/qwen-code/package.json", `{"version": "0.15.10"}`)
	f.file("app/node_modules/@qwen-code/qwen-code/cli.js", "")
	f.process("9", "/usr/bin/node", filepath.Join(f.root, "app"))
	if got := f.version(9, "node", "node_modules/@qwen-code/qwen-code/cli.js"); got != "0.15.10" {
		t.Errorf("relative script: %q, want 0.15.10", got)
	}
}

func TestVersionOfANativeBinaryInAPlatformPackage(t *testing.T) {
	f := newFakeTree(t)
	f.file("lib/node_modules/@openai/codex-linux-x64/package.json", `{"version": "0.169.0-linux-x64"}`)
	exe := f.file("lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", "")
	f.process("10", exe, f.root)
	if got := f.version(10, exe, "--no-daemon"); got != "0.169.0" {
		t.Errorf("codex's native binary: %q, want 0.169.0 (the platform suffix dropped)", got)
	}
	f.file("lib/node_modules/opencode-ai/package.json", `{"version": "1.18.33"}`)
	opencode := f.file("lib/node_modules/opencode-ai/bin/opencode.exe", "")
	f.process("11", opencode, f.root)
	if got := f.version(11, "opencode"); got != "1.18.33" {
		t.Errorf("opencode: %q, want 1.18.33", got)
	}
}

func TestVersionOfClaudesNativeInstall(t *testing.T) {
	f := newFakeTree(t)
	exe := f.file("home/.local/share/claude/versions/2.1.197", "")
	f.process("12", exe, f.root)
	if got := f.version(12, "claude"); got != "2.1.197" {
		t.Errorf("claude's versions file: %q, want 2.1.197", got)
	}
}

func TestVersionUnknown(t *testing.T) {
	f := newFakeTree(t)
	// A package.json outside any node_modules says nothing of the program (a checkout,
	// nvm's own): only an installed package's counts.
	f.file("src/package.json", `{"version": "9.9.9"}`)
	script := f.file("src/cli.js", "")
	f.process("13", "/usr/bin/node", f.root)
	if got := f.version(13, "node", script); got != "" {
		t.Errorf("script outside node_modules: %q, want unknown", got)
	}
	// A package.json that is a link may lead anywhere; one too large is not a package's.
	real := f.file("elsewhere/package.json", `{"version": "1.0.0"}`)
	f.link(real, "lib/node_modules/linked/package.json")
	linked := f.file("lib/node_modules/linked/cli.js", "")
	f.file("lib/node_modules/huge/package.json", `{"version": "1.0.0", "pad": "`+strings.Repeat("x", maxPackageJSON)+`"}`)
	huge := f.file("lib/node_modules/huge/cli.js", "")
	f.file("lib/node_modules/noversion/package.json", `{"name": "noversion"}`)
	noVersion := f.file("lib/node_modules/noversion/cli.js", "")
	for _, script := range []string{linked, huge, noVersion} {
		if got := f.version(13, "node", script); got != "" {
			t.Errorf("%s: %q, want unknown", script, got)
		}
	}
	if got := f.version(404, "node", noVersion); got != "" {
		t.Errorf("a process that is gone: %q, want unknown", got)
	}
}

func TestVersionOfAnotherUsersProcessIsUnknown(t *testing.T) {
	f := newFakeTree(t)
	f.file("lib/node_modules/opencode-ai/package.json", `{"version": "1.18.33"}`)
	exe := f.file("lib/node_modules/opencode-ai/bin/opencode.exe", "")
	f.process("14", exe, f.root)
	p := Process{PID: 14, Args: []string{"opencode"}}
	if got := versionIn(filepath.Join(f.root, "proc"), os.Geteuid()+1, p); got != "" {
		t.Errorf("another user's process: %q, want unknown", got)
	}
}

// TestVersionOfThisTest reads a real /proc: a Go test binary is in no package.
func TestVersionOfThisTest(t *testing.T) {
	if got := Version(Process{PID: os.Getpid(), Args: os.Args}); got != "" {
		t.Errorf("this test binary: %q, want unknown", got)
	}
}
