// Package termrec is a recording of what a program wrote to its terminal: the screen it
// was on when the recording started, each write with its time, and the screen it ended
// on. The agents lab records the real agent CLIs with it (internal/lab/calibrate), the
// bench replays them (cmd/paneherd-bench), and Measure says how each writes.
package termrec

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Recording is one program in one situation, written to a terminal of Cols x Rows.
type Recording struct {
	Agent   string `json:"agent"`   // the CLI, as its builtin pack is named ("claude")
	Version string `json:"version"` // the CLI's version
	State   string `json:"state"`   // the situation recorded ("thinking", "dialog", ...)
	Cols    int    `json:"cols"`
	Rows    int    `json:"rows"`
	// Duration is how long it was recorded: every write falls within it, and a replay
	// that loops waits out the rest before it starts again.
	Duration time.Duration `json:"duration"`
	Start    Screen        `json:"start"` // the terminal at time zero
	End      Screen        `json:"end"`   // the terminal at Duration
	Writes   []Write       `json:"-"`
}

// Screen is a terminal's state as tmux tells it: what shows, where the cursor is, and
// the modes a later write depends on.
type Screen struct {
	// Text is `capture-pane -p -e -N`: each row with its escapes and trailing blanks.
	Text         string `json:"text"`
	CursorX      int    `json:"cursor_x"`
	CursorY      int    `json:"cursor_y"`
	CursorHidden bool   `json:"cursor_hidden,omitempty"`
	Alternate    bool   `json:"alternate,omitempty"` // the alternate screen is on
	ScrollTop    int    `json:"scroll_top"`          // the scroll region's rows, from 0
	ScrollBottom int    `json:"scroll_bottom"`
}

// Write is what the program wrote at once (one tmux %output event), At after the start.
type Write struct {
	At   time.Duration
	Data []byte
}

// Bytes is every write's data, in order.
func (r Recording) Bytes() []byte {
	var out []byte
	for _, w := range r.Writes {
		out = append(out, w.Data...)
	}
	return out
}

// magic opens every encoded recording, with the format's version.
const magic = "paneherd-termrec 1\n"

// ErrFormat is returned by Decode for data that is not an encoded recording.
var ErrFormat = errors.New("termrec: not a recording")

// Encode writes r gzipped: the magic line, the header as one line of JSON, then each
// write as a line "MICROSECONDS LENGTH" followed by its bytes (which need no escaping).
func (r Recording) Encode(w io.Writer) error {
	z := gzip.NewWriter(w)
	header, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(z)
	b.WriteString(magic)
	b.Write(header)
	b.WriteByte('\n')
	for _, wr := range r.Writes {
		fmt.Fprintf(b, "%d %d\n", wr.At.Microseconds(), len(wr.Data))
		b.Write(wr.Data)
	}
	if err := b.Flush(); err != nil {
		return err
	}
	return z.Close()
}

// Decode reads a recording Encode wrote.
func Decode(rd io.Reader) (Recording, error) {
	var r Recording
	z, err := gzip.NewReader(rd)
	if err != nil {
		return r, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	b := bufio.NewReader(z)
	if line, err := b.ReadString('\n'); err != nil || line != magic {
		return r, ErrFormat
	}
	header, err := b.ReadBytes('\n')
	if err != nil {
		return r, fmt.Errorf("termrec: header: %w", err)
	}
	if err := json.Unmarshal(header, &r); err != nil {
		return r, fmt.Errorf("termrec: header: %w", err)
	}
	for {
		var us int64
		var n int
		if _, err := fmt.Fscanf(b, "%d %d\n", &us, &n); err == io.EOF {
			return r, nil
		} else if err != nil {
			return r, fmt.Errorf("termrec: write %d: %w", len(r.Writes), err)
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(b, data); err != nil {
			return r, fmt.Errorf("termrec: write %d: %w", len(r.Writes), err)
		}
		r.Writes = append(r.Writes, Write{At: time.Duration(us) * time.Microsecond, Data: data})
	}
}

// Ext ends a recording's file name.
const Ext = ".rec.gz"
