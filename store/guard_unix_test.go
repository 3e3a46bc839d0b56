//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestGuardedSurvivesReadPastEOF reproduces what a truncated database does
// to bbolt: a read through the mapping past the end of the file, which is
// a SIGBUS that would kill the process if guarded let it through.
func TestGuardedSurvivesReadPastEOF(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(path, []byte{1}, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := os.Getpagesize()
	data, err := syscall.Mmap(int(f.Fd()), 0, 2*page, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)

	var b byte
	err = guarded(func() error {
		b = data[page]
		return nil
	})
	if !errors.Is(err, errCorrupt) {
		t.Fatalf("guarded = %v (read %d), want errCorrupt", err, b)
	}
}
