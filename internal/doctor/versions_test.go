package doctor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

func TestAgentVersionLines(t *testing.T) {
	set := packs.Load("")
	seen := []agentVersion{
		{"%1", "claude", "2.1.197"}, {"%2", "claude", "2.1.197"}, {"%3", "claude", "2.1.332"},
		{"%4", "codex", "0.999.0"}, {"%5", "codex", "0.169.0"},
		{"%6", "gemini", ""},
		{"%7", "qwen", "0.15.10"}, {"%8", "qwen", ""},
	}
	codex, _ := set.Get("codex")
	want := []Check{
		ok("claude-version", "2.1.197 in 2 panes, 2.1.332 in %3, tested"),
		warn("codex-version", "0.999.0 in %4: not among the versions the codex pack was tested with ("+strings.Join(codex.Tested, ", ")+")",
			"its screens may read wrong; send 'paneherd record' frames if they do"),
		ok("gemini-version", "version unknown in %6 (its files do not say)"),
		ok("qwen-version", "0.15.10 in %7, tested; version unknown in %8 (its files do not say)"),
	}
	if got := versionChecks(set, seen); !reflect.DeepEqual(got, want) {
		t.Errorf("version lines:\n got %q\nwant %q", got, want)
	}
}

// TestPaneVersionsFromTheProcessTree runs a program from a fake npm install, as a pane's
// process, and finds its version through the codex pack's detection.
func TestPaneVersionsFromTheProcessTree(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "@openai", "codex-linux-x64")
	exe := filepath.Join(pkg, "vendor", "bin", "codex")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"version": "0.171.0-linux-x64"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep to copy")
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Until the child has exec'd, /proc shows it as this test's binary.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if now, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid)); now == exe {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the child runs %q, not %q", now, exe)
		}
	}
	table, err := proc.Scan()
	if err != nil {
		t.Fatal(err)
	}
	panes := []wire.Pane{
		{ID: "%1", Pack: "codex", PID: cmd.Process.Pid},
		{ID: "%2", Pack: "shell", PID: os.Getpid()},  // a pack without tested versions: no line
		{ID: "%3", Pack: "claude", PID: os.Getpid()}, // nothing claude runs here
	}
	got := paneVersions(packs.Load(""), panes, table)
	want := []agentVersion{{"%1", "codex", "0.171.0"}, {"%3", "claude", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pane versions: %+v, want %+v", got, want)
	}
}
