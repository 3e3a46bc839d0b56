package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// notAFile refuses a path that exists and is not a regular file (a symlink to one is
// fine), saying what it is: bbolt would answer a device with "invalid argument" from
// its first fsync, and a directory with "is a directory".
func notAFile(path string) error {
	info, err := os.Stat(path)
	if err != nil || info.Mode().IsRegular() {
		return nil // missing: Open creates it; unreadable: bbolt's error says why
	}
	what := kindOf(info.Mode())
	if target, err := os.Readlink(path); err == nil {
		what = "a symlink to " + target + ", " + what
	}
	return fmt.Errorf("it is %s, not a database file: remove it (rm %s), and paneherd makes a new database there", what, path)
}

func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// refusesWrites reports an open that failed because the file cannot be written: it is
// immutable or read-only (EPERM, EACCES), or its disk is read-only or full.
func refusesWrites(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// openReadOnly opens a database that refused to be opened for writing (cause), so that
// the daemon can run on what it holds, every write failing (and saying so) until the
// file is writable and the daemon restarted. Nothing is moved aside or migrated: both
// write.
func openReadOnly(path string, opts Options, cause error) (*Store, error) {
	const fix = "make it writable (chattr -i or chmod u+w on it, or free space on its disk), then run 'paneherd restart'"
	if info, err := os.Stat(path); err == nil && info.Size() == 0 {
		return nil, fmt.Errorf("store: open %s: it is empty and cannot be written (%w): %s", path, cause, fix)
	}
	db, err := boltOpen(path, opts.LockTimeout, true)
	if err == nil {
		if err = guarded(func() error { return db.View(readCurrent) }); err != nil {
			_ = db.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: it cannot be written (%v), nor used read-only: %w; %s", path, cause, err, fix)
	}
	return &Store{db: db, historyLimit: opts.HistoryLimit, readOnly: "opened read-only: " + cause.Error()}, nil
}

// readCurrent reads every page (as prepare does), and requires the current schema, which
// a database opened read-only cannot be migrated to.
func readCurrent(tx *bolt.Tx) error {
	if err := readAll(tx); err != nil {
		return err
	}
	version, err := schemaOf(tx)
	if err != nil {
		return err
	}
	if version != schemaVersion {
		return fmt.Errorf("its schema %d must be migrated to %d, which writes", version, schemaVersion)
	}
	return requireBuckets(tx)
}
