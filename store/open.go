package store

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// openDB opens and checks the database at path. Errors wrapping errCorrupt
// mean the file should be moved aside; ErrLocked means another process has it.
func openDB(path string, lockTimeout time.Duration) (*bolt.DB, error) {
	db, err := boltOpen(path, lockTimeout, false)
	if err != nil {
		return nil, err
	}
	if err := prepare(db); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

func boltOpen(path string, lockTimeout time.Duration, readOnly bool) (*bolt.DB, error) {
	var file *os.File
	opts := &bolt.Options{
		Timeout:  lockTimeout,
		ReadOnly: readOnly,
		// Keep the file so it can be closed if bbolt panics: it closes the
		// file on its own errors, but not on a panic. Its mapping of the
		// file leaks then, and keeps the flock alive (a mapping holds the
		// open file), which is harmless only because Open then renames the
		// file aside and creates a new one.
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			file = f
			return f, err
		},
	}
	var db *bolt.DB
	err := guarded(func() (err error) {
		db, err = bolt.Open(path, 0o600, opts)
		return err
	})
	if err != nil && file != nil {
		_ = file.Close()
	}
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, berrors.ErrTimeout):
		return nil, ErrLocked
	case errors.Is(err, berrors.ErrInvalid),
		errors.Is(err, berrors.ErrVersionMismatch),
		errors.Is(err, berrors.ErrChecksum),
		isTooSmall(err):
		return nil, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	return nil, err
}

// isTooSmall reports bbolt refusing a file shorter than its two meta pages,
// which is what a file truncated to between 2 KiB and two pages gives
// (shorter ones fail its meta-page probe with ErrInvalid). bbolt makes this
// error with a bare fmt.Errorf("file size too small %d") in DB.fileSize,
// with no sentinel to compare, so its text is all there is to go on;
// TestOpenSurvivesAnyTruncation fails if a bbolt upgrade changes it.
func isTooSmall(err error) bool {
	return strings.Contains(err.Error(), "file size too small")
}

// prepare makes an open file ready for use. It first reads every page in
// a read-only transaction, so that damage shows up here, where Open can
// still move the file aside, rather than as a panic in the running daemon
// or in a write transaction whose rollback would read the damage again.
// Then it creates or migrates the schema, rejecting foreign content.
func prepare(db *bolt.DB) error {
	return guarded(func() error {
		if err := db.View(readAll); err != nil {
			return err
		}
		return db.Update(ensureSchema)
	})
}

// readAll reads every page, so that damage shows (prepare).
func readAll(tx *bolt.Tx) error {
	if err := checkLength(tx); err != nil {
		return err
	}
	return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
		walk(b)
		return nil
	})
}

// guarded runs fn and turns a panic into errCorrupt. bbolt trusts the bytes
// it maps: a damaged page makes it panic, or read past the end of the
// file, which is a SIGBUS that kills the process unless SetPanicOnFault
// turns it into a panic for this goroutine.
func guarded(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: bbolt panicked reading it: %v", errCorrupt, r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return fn()
}

// checkLength rejects a truncated file before anything reads the pages its
// meta page promises but the file no longer holds.
func checkLength(tx *bolt.Tx) error {
	info, err := os.Stat(tx.DB().Path())
	if err != nil {
		return err
	}
	if info.Size() < tx.Size() {
		return fmt.Errorf("%w: file is %d bytes but its pages need %d (truncated)",
			errCorrupt, info.Size(), tx.Size())
	}
	return nil
}

// walk visits every key of b and its nested buckets. It finds nothing
// itself: its use is to make bbolt touch every page while guarded.
func walk(b *bolt.Bucket) {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil {
			continue
		}
		if sub := b.Bucket(k); sub != nil {
			walk(sub)
		}
	}
}

// moveAside renames path to path.corrupt-<UTC time>, adding a counter if
// that name is taken, so an earlier unusable file is never overwritten.
func moveAside(path string, now time.Time) (string, error) {
	base := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	aside := base
	for n := 2; exists(aside); n++ {
		aside = fmt.Sprintf("%s-%d", base, n)
	}
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("move aside: %w", err)
	}
	return aside, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}
