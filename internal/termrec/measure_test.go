package termrec

import (
	"testing"
	"time"
)

// Measure counts what each kind of writer does: Claude Code's relative redraw of a
// spinner row, a synchronized frame positioned absolutely, a whole-screen clear, text
// that scrolls at the bottom, and a row printed past its end, which wraps into the next.
func TestMeasureCountsHowAProgramWrites(t *testing.T) {
	spinner := "\x1b[2D\x1b[3B\r\x1b[7A\x1b[38;5;174m✶\x1b[39m\r\r\n\r\n\r\n\r\n\r\n\r\n\r\n\x1b[2C\x1b[3A"
	frame := "\x1b[?2026h\x1b[38;1H\x1b[2Kstatus\x1b[39;1Hinput\x1b[?2026l"
	rec := Recording{Cols: 10, Rows: 40, Duration: 2 * time.Second,
		Start: Screen{CursorX: 2, CursorY: 26, ScrollBottom: 39},
		Writes: []Write{
			{Data: []byte(spinner)},
			{Data: []byte(spinner)},
			{Data: []byte(frame)},
			{Data: []byte("\x1b[H\x1b[2J\x1b[40;1Hline\r\nline\r\n")},
			{Data: []byte("\x1b[1;1H0123456789wrapped\x1b[J")},
		}}
	got := Measure(rec)
	total := 2*len(spinner) + len(frame) + len("\x1b[H\x1b[2J\x1b[40;1Hline\r\nline\r\n") + len("\x1b[1;1H0123456789wrapped\x1b[J")
	want := Figures{
		BytesPerSecond: float64(total) / 2, WritesPerSecond: 2.5,
		RowsMedian: 2, RowsMax: 40, // a spinner row; the frame's two; the clear's 40; rows 1, 2 and all below
		Clears: 1, ErasesBelow: 1,
		Absolute: 5, Relative: 6, UpMax: 7, // the spinner's down 3, up 7, up 3, twice
		Scrolled: 2, Synchronized: true,
	}
	if got != want {
		t.Errorf("Measure:\n got %+v\nwant %+v", got, want)
	}
}
