package supervisor

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// TestRuntimeEventMasked: a runtime event's detail (the command a worker runs) and lines
// (a frozen screen's last lines) are masked before they are stored and logged.
func TestRuntimeEventMasked(t *testing.T) {
	h := newHealthRig(t)
	var log bytes.Buffer
	h.s.Log = zerolog.New(&log)
	h.s.event(h.w, "registered", "in /src, w:api, running env OPENAI_API_KEY=sk-proj-Ab3dEfGh1jKlMnOpQrStUvWx codex",
		"$ curl -u deploy:hunter22 https://ci.example/api", "frozen here")
	events, err := h.s.Store.WorkerEvents("api", 0)
	if err != nil || len(events) != 1 {
		t.Fatalf("events %+v, %v", events, err)
	}
	stored := events[0].Detail + "\n" + strings.Join(events[0].Lines, "\n")
	for what, text := range map[string]string{"stored event": stored, "log": log.String()} {
		if strings.Contains(text, "Ab3dEfGh1jKlMnOpQrStUvWx") || !strings.Contains(text, "OPENAI_API_KEY=sk-p…[masked openai key]") {
			t.Errorf("%s: the key is not masked: %s", what, text)
		}
	}
	if strings.Contains(stored, "hunter22") || !strings.Contains(stored, "deploy:…[masked password]") {
		t.Errorf("stored lines not masked: %s", stored)
	}
}

// TestLastLinesMasked: the last lines of a frozen worker's screen go into its runtime
// event and its notification; a password on them is masked.
func TestLastLinesMasked(t *testing.T) {
	tm := tmuxtest.New(t)
	pane := tm.NewSession("w", "printf 'sshpass -p hunter22 ssh -p 2222 host\\n'; exec sleep 100000")
	tmuxtest.WaitFor(t, 30*time.Second, func() bool {
		return strings.Contains(tm.Run("capture-pane", "-p", "-t", pane), "sshpass")
	})
	s := New(DefaultConfig)
	s.Server = tm.Server
	got := strings.Join(s.lastLines(context.Background(), pane, 15), "\n")
	if want := "sshpass -p …[masked password] ssh -p 2222 host"; !strings.Contains(got, want) {
		t.Errorf("last lines %q, want %q", got, want)
	}
}
