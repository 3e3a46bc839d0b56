package logfile

import (
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// repeatEvery is the interval of a repeated line: its first is written at once, the rest
// are counted, and the count is written when the interval ends.
const repeatEvery = 10 * time.Second

// maxHeld bounds the kinds of lines counted at once, whatever varies in what is repeated.
const maxHeld = 32

// otherKinds counts a line of a kind beyond maxHeld.
const otherKinds = "other kinds"

// Repeated returns the event for a line that input from outside can repeat at will (one
// per bad hook datagram, which any process of the user's can send as fast as it likes:
// the log would grow as fast). The first line of msg and kind (what went wrong, without
// the details that vary) in an interval is written; those after it are left out (a nil
// event, on which zerolog writes nothing) and counted, and when the interval ends one
// line says how many there were. The caller ends the event with Msg(msg).
func (l *Log) Repeated(level zerolog.Level, msg, kind string) *zerolog.Event {
	if !l.repeats.first(level, repeatKey{msg, kind}) {
		return nil
	}
	return l.WithLevel(level)
}

// repeats holds, per kind of line, the lines left out in the interval under way.
type repeats struct {
	log   zerolog.Logger
	every time.Duration

	mu     sync.Mutex
	held   map[repeatKey]*repeat
	closed bool
}

type repeatKey struct{ msg, kind string }

type repeat struct {
	level zerolog.Level
	left  int
	timer *time.Timer
}

func newRepeats(log zerolog.Logger) *repeats {
	return &repeats{log: log, every: repeatEvery, held: map[repeatKey]*repeat{}}
}

// first reports whether key starts an interval; if not, it counts it.
func (r *repeats) first(level zerolog.Level, key repeatKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	if r.held[key] == nil && len(r.held) >= maxHeld {
		key.kind = otherKinds
	}
	if h := r.held[key]; h != nil {
		h.left++
		return false
	}
	r.held[key] = &repeat{level: level, timer: time.AfterFunc(r.every, func() { r.end(key) })}
	return true
}

// end closes key's interval, writing how many lines it left out. It writes under the
// lock, so close never closes the file under a count being written.
func (r *repeats) end(key repeatKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.held[key]
	if h == nil {
		return
	}
	delete(r.held, key)
	r.say(key, h)
}

func (r *repeats) say(key repeatKey, h *repeat) {
	if h.left == 0 {
		return
	}
	what := key.msg
	if key.kind != "" {
		what += " (" + key.kind + ")"
	}
	r.log.WithLevel(h.level).Int("repeats", h.left).
		Msg(fmt.Sprintf("%s: %d more in %s, not written one by one", what, h.left, r.every))
}

// close writes the counts held and stops the intervals: nothing is written after it.
func (r *repeats) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, h := range r.held {
		h.timer.Stop()
		r.say(key, h)
	}
	r.held, r.closed = nil, true
}
