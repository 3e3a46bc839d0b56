package termrec

import (
	"bytes"
	"strconv"
)

// csi follows a control sequence (ESC [ params final) as far as rows are concerned.
func (t *tracker) csi(final byte, params []byte) {
	private := len(params) > 0 && (params[0] == '?' || params[0] == '>' || params[0] == '=')
	if private {
		t.mode(final, params)
		return
	}
	n := param(params, 0, 1)
	switch final {
	case 'A', 'F': // up, to the line's start with F
		t.f.Relative++
		t.f.UpMax = max(t.f.UpMax, n)
		t.y = max(t.limitUp(), t.y-n)
	case 'B', 'e', 'E': // down
		t.f.Relative++
		t.y = min(t.limitDown(), t.y+n)
	case 'H', 'f':
		t.f.Absolute++
		t.y, t.x = clamp(n-1, t.rows), clamp(param(params, 1, 1)-1, t.cols)
	case 'd':
		t.f.Absolute++
		t.y = clamp(n-1, t.rows)
	case 'G', '`':
		t.x = clamp(n-1, t.cols)
	case 'C', 'a':
		t.x = min(t.cols-1, t.x+n)
	case 'D':
		t.x = max(0, t.x-n)
	case 'J':
		t.erase(param(params, 0, 0))
	case 'K', 'X', 'P', '@':
		t.touched[t.y] = true
	case 'L', 'M': // insert or delete lines: the rows below move
		t.touchRows(t.y, t.bottom)
	case 'S', 'T':
		t.f.Scrolled += n
	case 'r':
		t.top, t.bottom = clamp(param(params, 0, 1)-1, t.rows), clamp(param(params, 1, t.rows)-1, t.rows)
		t.x, t.y = 0, 0
	case 's':
		t.savedX, t.savedY = t.x, t.y
	case 'u':
		t.x, t.y = t.savedX, t.savedY
	}
	if final != 'm' {
		t.wrapNext = false
	}
}

// mode follows the private modes that matter here: synchronized output and the
// alternate screen.
func (t *tracker) mode(final byte, params []byte) {
	if final != 'h' && final != 'l' {
		return
	}
	for _, p := range bytes.Split(params[1:], []byte{';'}) {
		switch string(p) {
		case "2026":
			t.f.Synchronized = t.f.Synchronized || final == 'h'
		case "1049", "1047", "47":
			t.f.AlternateUsed = t.f.AlternateUsed || final == 'h'
		}
	}
}

// erase is ED: 0 from the cursor down, 1 up to it, 2 or 3 all.
func (t *tracker) erase(how int) {
	switch how {
	case 0:
		t.f.ErasesBelow++
		t.touchRows(t.y, t.rows-1)
	case 1:
		t.touchRows(0, t.y)
	default:
		t.f.Clears++
		t.touchRows(0, t.rows-1)
	}
}

func (t *tracker) touchRows(from, to int) {
	for y := from; y <= to; y++ {
		t.touched[y] = true
	}
}

// limitUp and limitDown: a relative move stops at the scroll region's margin when it
// starts inside the region, else at the screen's edge.
func (t *tracker) limitUp() int {
	if t.y >= t.top {
		return t.top
	}
	return 0
}

func (t *tracker) limitDown() int {
	if t.y <= t.bottom {
		return t.bottom
	}
	return t.rows - 1
}

// param is the i-th parameter, or def when missing or 0.
func param(params []byte, i, def int) int {
	fields := bytes.Split(params, []byte{';'})
	if i >= len(fields) {
		return def
	}
	n, err := strconv.Atoi(string(bytes.SplitN(fields[i], []byte{':'}, 2)[0]))
	if err != nil || n == 0 {
		return def
	}
	return n
}

func clamp(v, n int) int { return max(0, min(n-1, v)) }
