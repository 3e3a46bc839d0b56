package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
)

// TestOpenRefusesWhatIsNotAFile: a database path that is a device (a symlink to
// /dev/null), a directory or a pipe is refused with what it is and what to do, and left
// as it was.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(path string) error
	}{
		{"a symlink to /dev/null", "a symlink to /dev/null, a character device", func(p string) error { return os.Symlink("/dev/null", p) }},
		{"a directory", "a directory", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, Options{})
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open of %s succeeded", tc.name)
			}
			for _, want := range []string{path, tc.want, "remove it"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Open = %v; want it to say %q", err, want)
				}
			}
			if _, err := os.Lstat(path); err != nil {
				t.Errorf("%s was moved or removed: %v", path, err)
			}
		})
	}
}

// TestOpenReadOnlyWhenWritesAreRefused: a database that cannot be opened for writing (an
// immutable file) opens read-only: what it holds is read, each write fails saying so,
// and ReadOnly says why.
func TestOpenReadOnlyWhenWritesAreRefused(t *testing.T) {
	path := testPath(t)
	s := mustOpen(t, path, Options{})
	mustApply(t, s, Batch{Put: []wire.Pane{{ID: "%1", Name: "api", State: "READY", Since: t0}}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	refuseWrites(t, path)

	ro := mustOpen(t, path, Options{})
	if why := ro.ReadOnly(); !strings.Contains(why, path) {
		t.Errorf("ReadOnly() = %q, want why, naming %s", why, path)
	}
	if ids := paneIDs(t, ro); len(ids) != 1 || ids[0] != "%1" {
		t.Errorf("panes read = %v, want %%1", ids)
	}
	err := ro.Apply(Batch{Put: []wire.Pane{{ID: "%2", Name: "web", State: "BUSY", Since: t0}}})
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Apply on a read-only store = %v, want it refused as read-only", err)
	}
}

// TestOpenRefusesAnEmptyFileItCannotWrite: an empty file that cannot be written cannot
// become a database: Open says so and what to do, rather than bbolt's "bad file
// descriptor".
func TestOpenRefusesAnEmptyFileItCannotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	refuseWrites(t, path)
	s, err := Open(path, Options{})
	if err == nil {
		_ = s.Close()
		t.Fatal("Open of an empty file it cannot write succeeded")
	}
	for _, want := range []string{path, "cannot be written", "make it writable"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open = %v; want it to say %q", err, want)
		}
	}
}

// refuseWrites makes the file at path refuse to be opened for writing until the test
// ends: immutable for root (whom modes do not stop), read-only for anyone else.
func refuseWrites(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, 0o400); err != nil {
			t.Fatal(err)
		}
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s immutable here: %v %s", path, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("chattr", "-i", path).CombinedOutput(); err != nil {
			t.Errorf("chattr -i %s: %v %s", path, err, out)
		}
	})
}
