package termrec

import (
	"sort"
	"unicode/utf8"
)

// Figures say how a program writes to its terminal, over one recording.
type Figures struct {
	BytesPerSecond, WritesPerSecond float64
	// Rows a write printed or erased something in: the median and the largest write's.
	RowsMedian, RowsMax int
	Clears              int  // whole-screen clears (ED 2 or 3, RIS)
	ErasesBelow         int  // erases from the cursor to the end of the screen (ED 0)
	Absolute            int  // cursor moves to a row (CUP, VPA)
	Relative            int  // cursor moves by rows (CUU, CUD, CNL, CPL, RI)
	UpMax               int  // the longest move up (CUU, CPL), in rows: how far above the cursor it redraws
	Scrolled            int  // lines scrolled (a line feed at the bottom margin, SU, SD, RI at the top)
	Synchronized        bool // it wraps its frames in synchronized output (mode 2026)
	AlternateUsed       bool // it was on the alternate screen, or switched to it
}

// Measure replays r's writes on a model of its terminal, from its first screen's cursor,
// and counts what they do.
func Measure(r Recording) Figures {
	t := newTracker(r)
	var rows []int
	total := 0
	for _, w := range r.Writes {
		t.touched = map[int]bool{}
		for _, c := range w.Data {
			t.feed(c)
		}
		rows = append(rows, len(t.touched))
		total += len(w.Data)
	}
	f := t.f
	if secs := r.Duration.Seconds(); secs > 0 {
		f.BytesPerSecond, f.WritesPerSecond = float64(total)/secs, float64(len(r.Writes))/secs
	}
	if len(rows) > 0 {
		sort.Ints(rows)
		f.RowsMedian, f.RowsMax = rows[len(rows)/2], rows[len(rows)-1]
	}
	f.AlternateUsed = f.AlternateUsed || r.Start.Alternate
	return f
}

// tracker follows the cursor through a stream of output, as a terminal of the
// recording's size would move it, well enough to tell which rows each write reaches.
type tracker struct {
	cols, rows     int
	x, y           int
	top, bottom    int
	wrapNext       bool // the last column was printed: the next character goes to the next row
	savedX, savedY int

	state   parseState
	params  []byte
	rune    []byte // a UTF-8 sequence being read
	touched map[int]bool
	f       Figures
}

type parseState int

const (
	ground parseState = iota
	escape
	csi
	osc          // ESC ] ... ended by BEL or ST
	controlStr   // ESC P, ESC _, ESC ^, ESC X ... ended by ST
	stringEscape // ESC inside a string: ST if '\' follows
	charset      // ESC ( and its kin: one more byte
)

func newTracker(r Recording) *tracker {
	s := r.Start
	bottom := s.ScrollBottom
	if bottom <= 0 {
		bottom = r.Rows - 1
	}
	return &tracker{cols: r.Cols, rows: r.Rows, x: s.CursorX, y: s.CursorY, top: s.ScrollTop, bottom: bottom,
		touched: map[int]bool{}}
}

func (t *tracker) feed(c byte) {
	switch t.state {
	case ground:
		t.ground(c)
	case escape:
		t.escape(c)
	case csi:
		if c >= 0x40 && c <= 0x7e {
			t.state = ground
			t.csi(c, t.params)
			t.params = t.params[:0]
		} else {
			t.params = append(t.params, c)
		}
	case osc, controlStr:
		switch {
		case c == 0x1b:
			t.state = stringEscape
		case c == 0x07 && t.state == osc:
			t.state = ground
		}
	case stringEscape:
		t.state = controlStr
		if c == '\\' {
			t.state = ground
		}
	case charset:
		t.state = ground
	}
}

func (t *tracker) ground(c byte) {
	switch {
	case c == 0x1b:
		t.state, t.rune = escape, t.rune[:0]
	case c == '\r':
		t.x, t.wrapNext = 0, false
	case c == '\n' || c == 0x0b || c == 0x0c:
		t.lineFeed()
	case c == '\b':
		t.x, t.wrapNext = max(0, t.x-1), false
	case c == '\t':
		t.x = min(t.cols-1, (t.x/8+1)*8)
	case c < 0x20 || c == 0x7f:
	default:
		t.rune = append(t.rune, c)
		if utf8.FullRune(t.rune) {
			r, _ := utf8.DecodeRune(t.rune)
			t.rune = t.rune[:0]
			t.print(width(r))
		}
	}
}

// print puts a character of w columns at the cursor.
func (t *tracker) print(w int) {
	if w == 0 {
		return
	}
	if t.wrapNext {
		t.x, t.wrapNext = 0, false
		t.lineFeed()
	}
	t.touched[t.y] = true
	t.x += w
	if t.x >= t.cols {
		t.x, t.wrapNext = t.cols-1, true
	}
}

func (t *tracker) lineFeed() {
	t.wrapNext = false
	switch {
	case t.y == t.bottom:
		t.f.Scrolled++
	case t.y < t.rows-1:
		t.y++
	}
}

func (t *tracker) escape(c byte) {
	t.state = ground
	switch c {
	case '[':
		t.state = csi
	case ']':
		t.state = osc
	case 'P', '_', '^', 'X':
		t.state = controlStr
	case '(', ')', '*', '+', '#', '%':
		t.state = charset
	case '7':
		t.savedX, t.savedY = t.x, t.y
	case '8':
		t.x, t.y, t.wrapNext = t.savedX, t.savedY, false
	case 'D':
		t.lineFeed()
	case 'E':
		t.x = 0
		t.lineFeed()
	case 'M': // reverse index
		t.f.Relative++
		if t.y == t.top {
			t.f.Scrolled++
		} else {
			t.y = max(0, t.y-1)
		}
	case 'c':
		t.f.Clears++
		t.touchRows(0, t.rows-1)
		t.x, t.y, t.top, t.bottom = 0, 0, 0, t.rows-1
	}
}

// width is how many columns a character takes: 0 for combining marks and joiners, 2 for
// the wide East Asian ranges and pictographs, else 1 (close enough to count rows).
func width(r rune) int {
	switch {
	case r >= 0x300 && r <= 0x36f, r == 0x200b, r == 0x200d, r >= 0xfe00 && r <= 0xfe0f:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
