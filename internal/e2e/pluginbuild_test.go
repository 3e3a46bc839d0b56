package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPluginBuildShowsInTheBar: a plugin cloned with no binary says in a real client's
// bar the step install.sh says it is at (downloading, building), then that the build
// failed and where its log is, and keeps saying so until a build succeeds; then the
// badges show, and no word of the build. (The plugin's install.sh is replaced by one the
// test controls: what is tested here is the plugin's glue, not the build.)
func TestPluginBuildShowsInTheBar(t *testing.T) {
	r, pluginDir := newPluginRig(t)
	os.Remove(filepath.Join(pluginDir, "bin", "paneherd"))
	install := filepath.Join(pluginDir, "install.sh")
	writeScript := func(body string) {
		t.Helper()
		if err := os.WriteFile(install, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	flag := filepath.Join(r.home, "build-may-end")
	writeScript(fmt.Sprintf("\"$PANEHERD_ON_STEP\" downloading\nwhile [ ! -e %s ]; do sleep 0.05; done\necho 'go: cannot find main module' >&2\nexit 1\n", shellQuote(flag)))
	id := r.tmux.NewSession("main", showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")))
	r.tmux.Run("rename-window", "-t", id, "agent")
	r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", "claude")
	conf := fmt.Sprintf(`set -g status-left ''
set -g window-status-format ''
set -g window-status-current-format ''
set -g status-right '#{paneherd_status}|'
run-shell %s/paneherd.tmux
`, pluginDir)
	r.source(conf)
	bar := statusBar(t, r, "main")
	r.waitFor("the bar says it is downloading", 20*time.Second, func() bool {
		return strings.HasSuffix(strings.TrimSpace(bar()), "[paneherd: downloading…] |")
	})
	os.WriteFile(flag, nil, 0o644)
	r.waitFor("the bar says the build failed and where the log is", 20*time.Second, func() bool {
		line := strings.TrimSpace(bar())
		return strings.HasPrefix(line, "[paneherd: build failed, see ") && strings.HasSuffix(line, "/cache/paneherd/build.log] |")
	})
	if b, _ := os.ReadFile(filepath.Join(r.home, "cache", "paneherd", "build.log")); !strings.Contains(string(b), "cannot find main module") {
		t.Errorf("build log: %q", b)
	}

	// The next start (prefix + I, tmux.conf sourced again) builds again, and succeeds.
	os.Remove(flag)
	writeScript(fmt.Sprintf("\"$PANEHERD_ON_STEP\" building\nwhile [ ! -e %s ]; do sleep 0.05; done\nmkdir -p \"$(dirname \"$0\")/bin\"\ncp %s \"$(dirname \"$0\")/bin/paneherd\"\n",
		shellQuote(flag), shellQuote(binary)))
	r.source(conf)
	r.waitFor("the bar says it is building again", 20*time.Second, func() bool {
		return strings.HasSuffix(strings.TrimSpace(bar()), "[paneherd: building…] |")
	})
	os.WriteFile(flag, nil, 0o644)
	r.waitFor("the badges, and no word of the build", 30*time.Second, func() bool {
		line := strings.TrimSpace(bar())
		return strings.HasSuffix(line, "[agent: READY]|") && !strings.Contains(line, "paneherd:")
	})
}
