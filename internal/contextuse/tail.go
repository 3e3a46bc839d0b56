package contextuse

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Bounds of reading a file. A transcript grows to hundreds of megabytes (tools' output),
// and only its last usage says how full the context is now: a file is read from where
// the last look stopped, never whole again (docs/performance.md#context-files).
const (
	// StartTail is how much of a file met for the first time, or replaced, is read: its
	// last bytes. Its earlier lines are never read.
	StartTail = 4 << 20
	// MaxRead bounds what one look reads: a file that grew by more is read on at the
	// next looks.
	MaxRead = 8 << 20
	// MaxLine bounds one line: a longer one (a tool's whole output) is dropped up to its
	// newline, never kept or parsed.
	MaxLine = 16 << 20
)

// beforeLen is how many of the bytes read last are compared with the file's at each look.
const beforeLen = 64

// keptLine is the largest buffer a line leaves behind for the next ones.
const keptLine = 1 << 20

// chunk is what one read call takes of the file.
const chunk = 256 << 10

// Tail reads the complete lines appended to a file since its last Read. It notices the
// file being replaced (another file at the path) or truncated, even when written again
// past where it was read to, and then starts over; a last line without its newline yet
// waits for it.
type Tail struct {
	Path string

	info   os.FileInfo // of the file read so far; nil: none yet
	offset int64       // the next byte to read
	line   []byte      // the start of a line whose newline has not come yet
	before []byte      // the last bytes before the offset, as read (sameBefore)
	// skipping: the bytes up to the next newline are dropped (a line begun before
	// StartTail's cut, or longer than MaxLine).
	skipping bool
	// whole: every line of the file was read from its first byte, so sums over its lines
	// are the file's.
	whole bool
	// BytesRead counts the bytes it has read in all: what its looks cost.
	BytesRead int64
}

// Whole reports whether the file was read from its first byte (sums over its lines are
// the file's), false when its first look found it longer than StartTail.
func (t *Tail) Whole() bool { return t.whole }

// Read hands each complete line appended since the last Read to line (without its
// newline, valid only during the call), reading at most MaxRead bytes. It calls restart
// first when the file is new to the Tail (its first read, or replaced, or truncated): what
// was read before no longer counts, and the caller starts over.
func (t *Tail) Read(restart func(), line func([]byte)) error {
	fi, err := os.Stat(t.Path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("contextuse: %s is not a regular file", t.Path) // a FIFO's open would wait
	}
	if t.info != nil && os.SameFile(t.info, fi) && fi.Size() == t.offset && fi.ModTime().Equal(t.info.ModTime()) {
		return nil // nothing written since: a stat is all the look costs
	}
	f, err := os.Open(t.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !os.SameFile(now, fi) {
		return fmt.Errorf("contextuse: %s replaced while read; read again at the next look", t.Path)
	}
	if t.info == nil || !os.SameFile(t.info, fi) || fi.Size() < t.offset || !t.sameBefore(f) {
		t.start(fi)
		restart()
	}
	t.info = fi
	if t.offset > 0 && t.skipping && t.lineAt(f) {
		t.skipping = false // the cut fell right after a newline: no line is cut
	}
	return t.readFrom(f, min(fi.Size(), t.offset+MaxRead), line)
}

// sameBefore reports whether the bytes before the offset are still those read there: a
// file truncated and written again between two looks, as long as before or longer, is
// another file to read from its start.
func (t *Tail) sameBefore(f *os.File) bool {
	if len(t.before) == 0 {
		return true
	}
	now := make([]byte, len(t.before))
	n, _ := f.ReadAt(now, t.offset-int64(len(now)))
	return n == len(now) && bytes.Equal(now, t.before)
}

// remember keeps the last bytes read, up to beforeLen (sameBefore).
func (t *Tail) remember(b []byte) {
	t.before = append(t.before, b[max(0, len(b)-beforeLen):]...)
	if over := len(t.before) - beforeLen; over > 0 {
		t.before = append(t.before[:0], t.before[over:]...)
	}
}

// start takes fi as a new file: its last StartTail bytes are read, from the first line
// that starts in them.
func (t *Tail) start(fi os.FileInfo) {
	t.info, t.offset, t.line, t.skipping, t.whole, t.before = fi, 0, nil, false, true, t.before[:0]
	if fi.Size() > StartTail {
		t.offset, t.skipping, t.whole = fi.Size()-StartTail, true, false
	}
}

// lineAt reports whether the byte before the offset is a newline: a line starts at it.
func (t *Tail) lineAt(f *os.File) bool {
	var b [1]byte
	n, _ := f.ReadAt(b[:], t.offset-1)
	return n == 1 && b[0] == '\n'
}

// readFrom reads f from the offset up to end, handing on each complete line.
func (t *Tail) readFrom(f *os.File, end int64, line func([]byte)) error {
	buf := make([]byte, chunk)
	for t.offset < end {
		n, err := f.ReadAt(buf[:min(int64(chunk), end-t.offset)], t.offset)
		t.offset += int64(n)
		t.BytesRead += int64(n)
		t.remember(buf[:n])
		t.split(buf[:n], line)
		if err == io.EOF {
			return nil // it shrank meanwhile: the next look starts over
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// split hands on the complete lines of b, keeping what follows the last newline.
func (t *Tail) split(b []byte, line func([]byte)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.keep(b)
			return
		}
		if !t.skipping {
			if len(t.line) > 0 {
				t.keep(b[:i])
				if !t.skipping {
					line(t.line)
				}
			} else {
				line(b[:i])
			}
		}
		t.lineDone()
		b = b[i+1:]
	}
}

// lineDone empties the line kept; a long one's buffer goes, so a file whose one line was
// long does not hold its size while it is followed.
func (t *Tail) lineDone() {
	t.line, t.skipping = t.line[:0], false
	if cap(t.line) > keptLine {
		t.line = nil
	}
}

// keep adds a part of a line to the one waiting for its newline; past MaxLine the line is
// dropped up to its newline.
func (t *Tail) keep(b []byte) {
	if t.skipping {
		return
	}
	if len(t.line)+len(b) > MaxLine {
		t.line, t.skipping = nil, true
		return
	}
	t.line = append(t.line, b...)
}
