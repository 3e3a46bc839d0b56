package paths

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestForServer(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	d, err := ForServer("/tmp/tmux-1000/default", "default-1a2b", env(map[string]string{"HOME": "/home/u"}))
	if err != nil || d.State != "/home/u/.local/state/paneherd/default-1a2b" || d.Runtime != "/tmp/tmux-1000/default.paneherd" {
		t.Fatalf("ForServer = %+v, %v", d, err)
	}
	if d.Socket() != "/tmp/tmux-1000/default.paneherd/daemon.sock" || d.DB() != d.State+"/state.db" {
		t.Errorf("Socket %q, DB %q", d.Socket(), d.DB())
	}
	if _, err := ForServer("/tmp/s", "k", env(nil)); err == nil {
		t.Error("no HOME and no XDG_STATE_HOME: want an error")
	}
	deep := "/tmp/" + strings.Repeat("very-long-name/", 6) + "sock"
	long, _ := ForServer(deep, "k", env(map[string]string{"HOME": "/h"}))
	other, _ := ForServer(deep+"2", "k", env(map[string]string{"HOME": "/h"}))
	if len(long.Query()) > maxSocketPath || long.Runtime == other.Runtime {
		t.Errorf("runtime dirs for long socket paths: %q, %q", long.Runtime, other.Runtime)
	}
}

func TestCreateRefusesForeignRuntimeDir(t *testing.T) {
	base := t.TempDir()
	d := Dir{State: filepath.Join(base, "state"), Runtime: filepath.Join(base, "sock.paneherd")}
	if err := os.Symlink(base, d.Runtime); err != nil {
		t.Fatal(err)
	}
	if err := d.Create(); err == nil {
		t.Error("a symlink in place of the runtime dir was accepted")
	}
	os.Remove(d.Runtime)
	os.Mkdir(d.Runtime, 0o755)
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(d.Runtime); fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime dir mode %v, want 0700", fi.Mode().Perm())
	}
}
