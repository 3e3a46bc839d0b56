package observe

// Shapes: how the control observer tells an animation from a change (controlmode_panes.go).
//
// A busy agent redraws its spinner line several times a second, and a timer or token
// count beside it: frame after frame, the same bytes but for a glyph and some numbers.
// Capturing the pane at each frame would show nothing new, and would be most of what a
// busy fleet costs (docs/performance.md, "Where control mode's CPU goes").
// So each %output is reduced to its shape: a hash of its bytes with every number the
// same. While a pane keeps printing, a shape seen before, and captured after, is the
// animation going on; only output of a new shape is captured (a dialog, an answer, a
// prompt, another spinner word), and the pane once more when it stops. What is learnt
// holds for one run of output: a pane still for printsAgain starts again from nothing.

// maxShapes: a pane printing more distinct shapes than this in one run is not looping
// (it streams text), and learns no more: the first new shape it prints once it has been
// captured freshLooks (as many) looks in a row for new ones pauses it. A stream slow
// enough to stay live (under liveRate) is thus relayed and captured for 32 looks, about
// 6.4 s, before it is paused.
const maxShapes = 32

// shapeOf hashes what a pane printed (as tmux escapes it) with every run of digits taken
// as one 0: a ticking timer (9s, 10s), a token count, a cursor row, leave the shape
// alone. FNV-1a, inline: it runs for every %output, on the client's reading goroutine.
func shapeOf(data []byte) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	digits := false
	for _, b := range data {
		if b >= '0' && b <= '9' {
			if digits {
				continue
			}
			b, digits = '0', true
		} else {
			digits = false
		}
		h ^= uint64(b)
		h *= prime
	}
	return h
}

// shapes is the set of shapes a pane printed in its current run and was captured after.
type shapes []uint64

func (s shapes) has(h uint64) bool {
	for _, x := range s {
		if x == h {
			return true
		}
	}
	return false
}

// learn adds the shapes a capture has just followed, as far as maxShapes.
func (s *shapes) learn(hs []uint64) {
	for _, h := range hs {
		if len(*s) >= maxShapes {
			return
		}
		if !s.has(h) {
			*s = append(*s, h)
		}
	}
}
