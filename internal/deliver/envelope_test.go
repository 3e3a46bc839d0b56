package deliver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
)

func TestCheckEnvelope(t *testing.T) {
	tests := []struct {
		name, id string
		ok       bool
	}{
		{"plain", "job-7", true},
		{"every allowed character", "Az09-_.:", true},
		{"the longest", strings.Repeat("a", MaxEnvelope), true},
		{"empty", "", false},
		{"too long", strings.Repeat("a", MaxEnvelope+1), false},
		{"space", "job 7", false},
		{"bracket closes the header", "job]", false},
		{"newline", "job\n7", false},
		{"escape", "job\x1b[201~", false},
		{"shell", "$(rm)", false},
		{"slash", "a/b", false},
		{"equals", "id=x", false},
		{"non-ASCII letter", "jöb", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckEnvelope(tt.id)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrBadEnvelope)) {
				t.Errorf("CheckEnvelope(%q) = %v, want ok=%v", tt.id, err, tt.ok)
			}
		})
	}
}

func TestPayloadWrapsInTheEnvelope(t *testing.T) {
	tests := []struct {
		name          string
		req           wire.SendRequest
		want, wantErr string
	}{
		{"no envelope", wire.SendRequest{Text: "do it\n"}, "do it", ""},
		{"envelope", wire.SendRequest{Text: "line one\r\nline two\n\n", Envelope: "job-7"},
			"[TRIGGER id=job-7]\nline one\nline two\n[/TRIGGER]", ""},
		{"sanitised inside", wire.SendRequest{Text: "a\x1b[201~b", Envelope: "j"}, "[TRIGGER id=j]\na[201~b\n[/TRIGGER]", ""},
		{"bad envelope", wire.SendRequest{Text: "x", Envelope: "a b"}, "", "envelope id"},
		{"empty prompt", wire.SendRequest{Text: "\x1b\n", Envelope: "j"}, "", "empty"},
		{"too long once wrapped", wire.SendRequest{Text: strings.Repeat("x", MaxPayload-5), Envelope: "j"}, "", "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Payload(tt.req)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Payload = %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Payload = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestAckMarkCountsOnlyANewAcknowledgement(t *testing.T) {
	tests := []struct {
		name, before, payload, screen string
		acked                         bool
	}{
		{"the worker answers", "", "[TRIGGER id=t1]\nhi\n[/TRIGGER]", "hi\nACK_TRIGGER:t1", true},
		{"at the end of a sentence", "", "hi", "done: ACK_TRIGGER:t1.", true},
		{"between other words", "", "hi", "ok (ACK_TRIGGER:t1) now", true},
		{"nothing", "", "hi", "hi", false},
		{"a longer id", "", "hi", "ACK_TRIGGER:t12", false},
		{"a longer id with a dot", "", "hi", "ACK_TRIGGER:t1.2", false},
		{"on the screen before the paste", "ACK_TRIGGER:t1", "hi", "ACK_TRIGGER:t1\nhi", false},
		{"before, and answered again", "ACK_TRIGGER:t1", "hi", "ACK_TRIGGER:t1\nACK_TRIGGER:t1", true},
		{"the prompt names it, echoed", "", "say ACK_TRIGGER:t1", "> say ACK_TRIGGER:t1", false},
		{"the prompt names it, answered", "", "say ACK_TRIGGER:t1", "> say ACK_TRIGGER:t1\nACK_TRIGGER:t1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newAckMark("t1", tt.before, tt.payload).on(tt.screen); got != tt.acked {
				t.Errorf("acknowledged = %v, want %v", got, tt.acked)
			}
		})
	}
	if newAckMark("", "", "x").on("ACK_TRIGGER:") {
		t.Error("a send without an envelope read an acknowledgement")
	}
}

// envelopeWorker is a worker at a shell-like prompt that reads a prompt up to its
// [/TRIGGER] line and the Enter, then prints it as a transcript would, then reply, then
// its prompt again still holding the envelope's first line: by the signs every send
// watches for (BUSY, or the screen changed and the input box emptied) the prompt was not
// taken, so only the acknowledgement can make the send DELIVERED. before is shown above
// the first prompt. It returns the engine (no retries, a short ack timeout), the pane,
// and what the worker read.
func envelopeWorker(t *testing.T, before, reply string) (*Engine, string, func() string) {
	t.Helper()
	h := tmuxtest.New(t)
	rec, shown := filepath.Join(h.Dir, "received"), filepath.Join(h.Dir, "shown")
	// -icanon -echo: keys reach the script at once and draw nothing. The script stays in
	// front (cat is its child, not exec'd), so the line at its prompt is a draft to the
	// shell pack, not a command running.
	script := fmt.Sprintf(`stty -icanon -echo min 1; printf '%%s' %s; printf 'user@host:~$ '; : > %s
got=
while IFS= read -r line; do got="$got$line
"; [ "$line" = '[/TRIGGER]' ] && break; done
printf '%%s' "$got" > %s
printf '\r\033[K%%s%%s\nuser@host:~$ [TRIGGER id=job-7]' "$got" %s
cat > /dev/null`, tmux.ShellWord(before), tmux.ShellWord(shown), tmux.ShellWord(rec), tmux.ShellWord(reply))
	paneID := h.NewSession("work", "sh -c "+tmux.ShellWord(script))
	tmuxtest.WaitFor(t, 30*time.Second, func() bool { _, err := os.Stat(shown); return err == nil })
	e := New(h.Server, Config{AckTimeout: 1500 * time.Millisecond, RateLimit: 100, RateWindow: time.Minute})
	pack := shellPack(t)
	e.Lookup = func(id string) (Pane, bool) {
		return Pane{ID: paneID, Name: "worker", State: state.Ready, Pack: pack}, id == paneID
	}
	received := func() string {
		b, _ := os.ReadFile(rec)
		return string(b)
	}
	return e, paneID, received
}

// TestEnvelopeAcknowledgedByTheWorker: an envelope send pastes the wrapped prompt, and
// ACK_TRIGGER:ID appearing on the screen after the paste acknowledges it; the same
// text there before, in the prompt itself, or for another id does not.
func TestEnvelopeAcknowledgedByTheWorker(t *testing.T) {
	tests := []struct {
		name, before, text, reply string
		want                      outcome.Outcome
	}{
		{"acknowledged", "", "do it", "ACK_TRIGGER:job-7.", outcome.Delivered},
		{"another trigger's acknowledgement", "", "do it", "ACK_TRIGGER:job-77", outcome.AckTimeout},
		{"no acknowledgement", "", "do it", "", outcome.AckTimeout},
		{"on the screen before the paste", "ACK_TRIGGER:job-7\n", "do it", "", outcome.AckTimeout},
		{"the prompt says what to answer", "", "answer ACK_TRIGGER:job-7", "", outcome.AckTimeout},
		{"the prompt says what to answer, answered", "", "answer ACK_TRIGGER:job-7", "ACK_TRIGGER:job-7", outcome.Delivered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, pane, received := envelopeWorker(t, tt.before, tt.reply)
			var audited wire.Trigger
			e.Audit = func(tr wire.Trigger) error { audited = tr; return nil }
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res := e.Send(ctx, wire.SendRequest{ID: "t1", PaneID: pane, Text: tt.text, Envelope: "job-7", Force: true, Reason: "test"})
			if res.Outcome != tt.want {
				t.Errorf("send = %s (%s), want %s", res.Outcome, res.Detail, tt.want)
			}
			want := "[TRIGGER id=job-7]\n" + tt.text + "\n[/TRIGGER]\n" // the last newline is the Enter
			if got := received(); got != want {
				t.Errorf("the worker read %q, want %q", got, want)
			}
			if audited.Envelope != "job-7" || audited.SHA256 != Digest(strings.TrimSuffix(want, "\n")) {
				t.Errorf("audited %+v; want the envelope and the digest of the wrapped prompt", audited)
			}
		})
	}
}

// TestPhasesOfASend: Engine.Phase hears triggering, awaiting_ack and done, in order, for
// a send that goes through, and only done for one refused before anything was typed.
func TestPhasesOfASend(t *testing.T) {
	e, pane, _ := envelopeWorker(t, "", "ACK_TRIGGER:job-7")
	var heard []string
	e.Phase = func(paneID, triggerID string, p Phase) {
		heard = append(heard, fmt.Sprintf("%s %s %s", paneID, triggerID, p))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	refused := e.Send(ctx, wire.SendRequest{ID: "t0", PaneID: pane, Text: "x", Envelope: "not a token"})
	res := e.Send(ctx, wire.SendRequest{ID: "t1", PaneID: pane, Text: "do it", Envelope: "job-7", Force: true, Reason: "test"})
	if refused.Outcome != outcome.SendKeysError || res.Outcome != outcome.Delivered {
		t.Fatalf("sends = %s (%s), %s (%s); want SEND_KEYS_ERROR, DELIVERED", refused.Outcome, refused.Detail, res.Outcome, res.Detail)
	}
	want := []string{pane + " t0 done", pane + " t1 triggering", pane + " t1 awaiting_ack", pane + " t1 done"}
	if !slices.Equal(heard, want) {
		t.Errorf("phases %q, want %q", heard, want)
	}
}
