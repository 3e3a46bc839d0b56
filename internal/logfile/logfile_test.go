package logfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLevelChangesWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, err := Open(path, "info")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Debug().Msg("hidden")
	l.Info().Msg("shown")
	l.SetLevel("debug")
	l.Debug().Msg("now shown")
	if err := l.SetLevel("loud"); err == nil {
		t.Error("a bad level was accepted")
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if strings.Contains(got, "hidden") || !strings.Contains(got, `"shown"`) || !strings.Contains(got, "now shown") {
		t.Errorf("log:\n%s", got)
	}
}
