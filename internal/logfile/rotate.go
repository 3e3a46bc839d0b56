package logfile

import (
	"fmt"
	"os"
	"sync"
)

// maxSize is the size at which the log is rotated, at open or while it runs: one old
// generation (path.1) is kept, so the log never takes much more than twice this.
const maxSize = 10 << 20

// rotating is the log file, renamed to path.1 and opened anew once a line would take it
// past max, while the daemon runs: a busy daemon writes megabytes an hour and may run
// for weeks.
type rotating struct {
	path string
	max  int64
	// openFile is os.OpenFile; a test makes it fail.
	openFile func(name string, flag int, perm os.FileMode) (*os.File, error)

	mu   sync.Mutex
	file *os.File // nil once closed
	size int64
}

func openRotating(path string) (*rotating, error) {
	r := &rotating{path: path, max: maxSize, openFile: os.OpenFile}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotating) open() error {
	f, err := r.openFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("logfile: open %s: %w", r.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("logfile: open %s: %w", r.path, err)
	}
	r.file, r.size = f, fi.Size()
	return nil
}

// Write writes one line (zerolog writes each event whole), rotating first when it would
// not fit. A rotation that fails leaves the line in the file as it is: a log that grows
// is better than lines lost.
func (r *rotating) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return len(p), nil // closed: a line racing the daemon's end is dropped
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		r.rotate()
	}
	n, err := r.file.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate moves the file to path.1, replacing the generation before, and opens a new one.
// When the new one cannot be opened (out of descriptors, say) the file goes back to path:
// left as path.1, every later rotation would fail at its rename, and the file would grow
// without bound under a name that is not the log's.
func (r *rotating) rotate() {
	if err := os.Rename(r.path, r.path+".1"); err != nil {
		return
	}
	old := r.file
	if err := r.open(); err != nil {
		os.Rename(r.path+".1", r.path) // over any empty file the failed open made
		return
	}
	old.Close()
}

func (r *rotating) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}
