// Package store keeps paneherd's pane states and their transition history in
// a bbolt file; the records it keeps are internal/wire's. Only the daemon opens it:
// bbolt holds an exclusive lock for the whole life of the handle, and every other
// process reads the daemon's snapshot or asks it over its socket.
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Options tune Open. The zero value gives the defaults.
type Options struct {
	// LockTimeout bounds the wait for another process's lock on the file.
	// Zero or negative means 1s: bbolt would otherwise wait forever.
	LockTimeout time.Duration

	// HistoryLimit is how many transitions are kept per pane; Apply drops
	// the oldest beyond it. Zero or negative means 500.
	HistoryLimit int

	// Now stamps the name of a file moved aside. Nil means time.Now.
	Now func() time.Time
}

const (
	defaultLockTimeout  = time.Second
	defaultHistoryLimit = 500
)

func (o Options) withDefaults() Options {
	if o.LockTimeout <= 0 {
		o.LockTimeout = defaultLockTimeout
	}
	if o.HistoryLimit <= 0 {
		o.HistoryLimit = defaultHistoryLimit
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Store is an open paneherd database.
type Store struct {
	db           *bolt.DB
	historyLimit int
	recovered    string
	readOnly     string // why the file was opened read-only ("": it was not)
}

// Open opens the database at path, creating it and its directory if
// missing. A file that is damaged, foreign or from a newer paneherd is
// renamed to path.corrupt-<UTC time> and replaced by a fresh database;
// Recovered then says so. If another process holds the file, Open fails
// with ErrLocked after opts.LockTimeout. A file that refuses to be written (immutable,
// read-only, on a full or read-only disk) is opened read-only: every write fails, and
// ReadOnly says why. A path that is not a file (a device, a directory) is refused.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := notAFile(path); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db, err := openDB(path, opts.LockTimeout)
	switch {
	case err == nil:
		return &Store{db: db, historyLimit: opts.HistoryLimit}, nil
	case refusesWrites(err):
		return openReadOnly(path, opts, err)
	case !errors.Is(err, errCorrupt):
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return openFresh(path, opts, err)
}

// openFresh moves the unusable file at path aside and opens a new database
// in its place.
func openFresh(path string, opts Options, cause error) (*Store, error) {
	aside, err := moveAside(path, opts.Now())
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w (file left in place: %v)", path, err, cause)
	}
	db, err := openDB(path, opts.LockTimeout)
	if err != nil {
		return nil, fmt.Errorf("store: open %s after moving it aside to %s: %w", path, aside, err)
	}
	s := &Store{db: db, historyLimit: opts.HistoryLimit}
	s.recovered = fmt.Sprintf("moved %s aside to %s and started a fresh database: %v", path, aside, cause)
	return s, nil
}

// Recovered is empty unless Open replaced an unusable file; then it says
// where the old file went and why, so the daemon can log it.
func (s *Store) Recovered() string { return s.recovered }

// ReadOnly is empty unless Open could only open the file read-only; then it says so and
// why, and every write fails until the file is writable and the store opened again.
func (s *Store) ReadOnly() string { return s.readOnly }

// HistoryLimit is how many transitions each pane keeps: Apply drops the older ones.
func (s *Store) HistoryLimit() int { return s.historyLimit }

// Close releases the database and its lock.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", s.db.Path(), err)
	}
	return nil
}
