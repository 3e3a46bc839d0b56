package deliver

import (
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/internal/wire"
)

// An envelope marks a prompt for a worker that follows the runtime model's protocol: the
// prompt goes as
//
//	[TRIGGER id=ID]
//	text
//	[/TRIGGER]
//
// and the worker answers ACK_TRIGGER:ID, which counts as the acknowledgement besides the
// signs every send watches for (awaitAck).
//
// The envelope id is the caller's, not the send's trigger id, which stays one paneherd
// makes per send: the trigger id keys a queued prompt in the store and names the tmux
// buffer the paste goes through, so two sends sharing one (a supervisor sending the same
// trigger again after ACK_TIMEOUT, or to two workers at once) would replace each other's
// queued prompt or paste each other's text. The audit keeps both (wire.Trigger.Envelope).

// MaxEnvelope bounds an envelope id.
const MaxEnvelope = 64

// ErrBadEnvelope is returned by CheckEnvelope for an id that is not a safe token.
var ErrBadEnvelope = fmt.Errorf("an envelope id is 1 to %d letters, digits or -_.: characters", MaxEnvelope)

// CheckEnvelope reports whether id may be an envelope id: it is pasted into the prompt
// and matched on the screen, so only a short token of plain characters, nothing a
// terminal, a shell or a pattern would read as anything else.
func CheckEnvelope(id string) error {
	if id == "" || len(id) > MaxEnvelope {
		return ErrBadEnvelope
	}
	for i := 0; i < len(id); i++ {
		if !tokenByte(id[i]) {
			return ErrBadEnvelope
		}
	}
	return nil
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:", c) >= 0
}

// Payload is the text a send pastes: the prompt sanitised, in its envelope if it has
// one. The audit's digest and length are of this.
func Payload(req wire.SendRequest) (string, error) {
	text, err := Sanitize(req.Text)
	if err != nil || req.Envelope == "" {
		return text, err
	}
	if err := CheckEnvelope(req.Envelope); err != nil {
		return "", fmt.Errorf("%w: %q", err, req.Envelope)
	}
	text = "[TRIGGER id=" + req.Envelope + "]\n" + text + "\n[/TRIGGER]"
	if len(text) > MaxPayload {
		return "", ErrTooLong
	}
	return text, nil
}

// ackMark is the text a worker shows to acknowledge an envelope ("" without one), and
// how many times the screen may show it without that being an acknowledgement: as often
// as it did before the paste, plus as often as the prompt holds it (a prompt may tell
// the worker what to answer, and the agent echoes the prompt into its transcript).
type ackMark struct {
	text string
	seen int
}

func newAckMark(envelope, before, payload string) ackMark {
	if envelope == "" {
		return ackMark{}
	}
	text := "ACK_TRIGGER:" + envelope
	return ackMark{text: text, seen: countToken(before, text) + countToken(payload, text)}
}

// on reports whether the screen's plain text shows the acknowledgement.
func (m ackMark) on(screen string) bool {
	return m.text != "" && countToken(screen, m.text) > m.seen
}

// countToken counts tok in s where it is not the start of a longer token: the
// acknowledgement of envelope "t1" is not one of "t12" or "t1.2", but a sentence may end
// right after it ("ACK_TRIGGER:t1.").
func countToken(s, tok string) int {
	n := 0
	for {
		i := strings.Index(s, tok)
		if i < 0 {
			return n
		}
		s = s[i+len(tok):]
		if !continues(s) {
			n++
		}
	}
}

// continues reports whether s, which follows a token, goes on with more of it.
func continues(s string) bool {
	switch {
	case s == "":
		return false
	case s[0] == '.' || s[0] == ':':
		return len(s) > 1 && tokenByte(s[1])
	}
	return tokenByte(s[0])
}
