package paths

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWrittenTellsAFileChangedByAnother: a file removed, rewritten in place (same size),
// replaced by a rename or made unreadable since Note reads as changed; the one noted does not.
func TestWrittenTellsAFileChangedByAnother(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshot.json")
	var w Written
	if !w.Changed(path) {
		t.Error("a file never noted is unchanged")
	}
	write := func() {
		t.Helper()
		if err := WriteAtomic(path, []byte(`{"pid":1}`)); err != nil {
			t.Fatal(err)
		}
		w.Note(path)
	}
	write()
	if w.Changed(path) {
		t.Fatal("the file just noted reads as changed")
	}
	for _, tc := range []struct {
		name   string
		damage func() error
	}{
		{"removed", func() error { return os.Remove(path) }},
		{"garbled in place, same size", func() error {
			later := time.Now().Add(time.Second)
			if err := os.WriteFile(path, []byte(`{"pid":x}`), 0o600); err != nil {
				return err
			}
			return os.Chtimes(path, later, later) // a coarse clock could give the same time
		}},
		{"replaced", func() error {
			if err := os.WriteFile(path+".new", []byte(`{"pid":1}`), 0o600); err != nil {
				return err
			}
			return os.Rename(path+".new", path)
		}},
		{"made unreadable", func() error { return os.Chmod(path, 0) }},
	} {
		write()
		if err := tc.damage(); err != nil {
			t.Fatal(err)
		}
		if !w.Changed(path) {
			t.Errorf("%s: Changed says no", tc.name)
		}
	}
}
