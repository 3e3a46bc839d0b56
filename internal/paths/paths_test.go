package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestForServer(t *testing.T) {
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

// longSocket is a tmux socket path too long for the runtime directory to sit beside it.
const longSocket = "/tmp/" + "a-socket-path-long-enough-that-its-query-socket-would-not-fit-in-sun-path/" + "sock"

// otherUID is a user who is not us: the nobody of most systems.
const otherUID = 65534

func asRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
}

// sharedTemp is a TMPDIR as /tmp is: anyone may make a directory in it.
func sharedTemp(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return tmp
}

func TestLongSocketRuntimeRefusesAParentNotOurs(t *testing.T) {
	asRoot(t)
	for _, tt := range []struct {
		name    string
		prepare func(parent string) error
		problem string
	}{
		{"another user's", func(parent string) error {
			if err := os.Mkdir(parent, 0o700); err != nil {
				return err
			}
			return os.Chown(parent, otherUID, otherUID)
		}, "belongs to uid 65534"},
		{"ours but open to all", func(parent string) error {
			if err := os.Mkdir(parent, 0o700); err != nil {
				return err
			}
			return os.Chmod(parent, 0o777)
		}, "may be written by others (mode 0777)"},
		{"a symlink to a directory of ours", func(parent string) error {
			return os.Symlink(t.TempDir(), parent)
		}, "is not a directory (a symlink?)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmp := sharedTemp(t)
			t.Setenv("TMPDIR", tmp) // where the runtime went before it was read through getenv
			d, err := ForServer(longSocket, "k", env(map[string]string{"HOME": t.TempDir(), "TMPDIR": tmp}))
			if err != nil {
				t.Fatal(err)
			}
			parent := filepath.Join(tmp, fmt.Sprintf("paneherd-%d", os.Getuid()))
			if filepath.Dir(d.Runtime) != parent {
				t.Fatalf("runtime %s, want it in %s", d.Runtime, parent)
			}
			if err := tt.prepare(parent); err != nil {
				t.Fatal(err)
			}
			err = d.Create()
			if err == nil {
				t.Fatalf("Create used %s (%s)", parent, tt.name)
			}
			for _, want := range []string{parent, tt.problem, "remove it", "shorter socket path"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Create's error %q does not say %q", err, want)
				}
			}
			if _, err := os.Lstat(d.Runtime); err == nil {
				t.Errorf("Create made %s in a parent it refused", d.Runtime)
			}
		})
	}
}

// TestClientsRefuseARuntimeNotOurs: a process about to read the daemon's files or dial its
// sockets (status, send, hook) refuses a runtime directory another user made, or its
// parent, though the daemon never made it.
func TestClientsRefuseARuntimeNotOurs(t *testing.T) {
	asRoot(t)
	tmp := sharedTemp(t)
	d, err := ForServer(longSocket, "k", env(map[string]string{"HOME": t.TempDir(), "TMPDIR": tmp}))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Trusted(); err != nil {
		t.Fatalf("nothing made yet: %v", err)
	}
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	if err := d.Trusted(); err != nil {
		t.Fatalf("our own, just made: %v", err)
	}
	os.Chown(d.Runtime, otherUID, otherUID)
	if err := d.Trusted(); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("runtime of uid %d: Trusted = %v", otherUID, err)
	}
	os.Chown(d.Runtime, os.Getuid(), os.Getgid())
	os.Chmod(d.Parent, 0o777)
	if err := d.Trusted(); err == nil || !strings.Contains(err.Error(), d.Parent) {
		t.Errorf("parent open to all: Trusted = %v", err)
	}
}

// TestLongSocketRuntimeIgnoresXDGRuntimeDir: every process of the user finds the same
// runtime directory, whether its environment has XDG_RUNTIME_DIR (a desktop login) or
// not (cron, an MCP client).
func TestLongSocketRuntimeIgnoresXDGRuntimeDir(t *testing.T) {
	tmp := t.TempDir()
	with, _ := ForServer(longSocket, "k", env(map[string]string{"HOME": "/h", "XDG_RUNTIME_DIR": t.TempDir(), "TMPDIR": tmp}))
	without, _ := ForServer(longSocket, "k", env(map[string]string{"HOME": "/h", "TMPDIR": tmp}))
	want := filepath.Join(tmp, "paneherd-"+strconv.Itoa(os.Getuid()))
	if with.Runtime != without.Runtime || with.Parent != want {
		t.Errorf("runtime %s with XDG_RUNTIME_DIR, %s without; want both under %s", with.Runtime, without.Runtime, want)
	}
}

// TestSSHFitsAControlSocket: ssh's control sockets sit in Runtime when their paths fit a
// unix socket's (sun_path of macOS and the BSDs, with ssh's hash and its temporary
// suffix), else in a short directory of their own per server; each is made private.
func TestSSHFitsAControlSocket(t *testing.T) {
	short := Dir{Runtime: "/tmp/tmux-1000/default.paneherd"}
	if short.SSH() != "/tmp/tmux-1000/default.paneherd/ssh" {
		t.Errorf("SSH of a short runtime dir: %q", short.SSH())
	}
	macOS := Dir{Runtime: "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/tmux-501/default.paneherd"}
	other := Dir{Runtime: macOS.Runtime + "2"}
	if got := macOS.SSH(); len(got)+1+40+17 >= 104 || got == other.SSH() || !strings.HasPrefix(got, "/tmp/paneherd-") {
		t.Errorf("SSH of a long runtime dir: %q (and %q for another)", got, other.SSH())
	}
	base, err := os.MkdirTemp("/tmp", "ph") // short: t.TempDir's would put SSH in /tmp/paneherd-<uid>
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	d := Dir{State: filepath.Join(base, "s"), Runtime: filepath.Join(base, "r")}
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	dir, err := d.CreateSSH()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 || dir != d.SSH() {
		t.Errorf("CreateSSH made %q: %v, %v", dir, fi, err)
	}
}
