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
// past max. A busy daemon writes megabytes an hour, so rotating only at open let the file
// grow for as long as the daemon ran.
type rotating struct {
	path string
	max  int64

	mu   sync.Mutex
	file *os.File // nil once closed
	size int64
}

func openRotating(path string) (*rotating, error) {
	r := &rotating{path: path, max: maxSize}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotating) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
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
func (r *rotating) rotate() {
	if err := os.Rename(r.path, r.path+".1"); err != nil {
		return
	}
	old := r.file
	if err := r.open(); err != nil {
		return // old, now path.1, takes the lines until a rotation succeeds
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
