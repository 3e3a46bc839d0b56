package contextuse

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// told records what Readers tell.
type told struct {
	panes map[string][]wire.Context
	gone  map[string]bool // panes Changed reports no longer watched
}

func newReaders(t *testing.T) (*Readers, *told) {
	rec := &told{panes: map[string][]wire.Context{}, gone: map[string]bool{}}
	r := &Readers{
		Window: func(agent, model string) int64 { return windows(t, agent)(model) },
		Changed: func(id string, c wire.Context) bool {
			rec.panes[id] = append(rec.panes[id], c)
			return !rec.gone[id]
		},
	}
	return r, rec
}

// A pane follows the file its hook named: its context is told once per change, a new
// path replaces the old, the hook's model names the window.
func TestReaders(t *testing.T) {
	data := recorded(t, "claude-2.1.197.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	appendTo(t, first, bytes.Join(lines[:8], nil))   // one answer: 100 tokens
	appendTo(t, second, bytes.Join(lines[:12], nil)) // then one of 150000

	r, rec := newReaders(t)
	if err := r.Follow("%1", Claude, first, "claude-opus-4-8[1m]"); err != nil {
		t.Fatal(err)
	}
	r.Look()
	r.Look() // nothing new: nothing told
	if got := rec.panes["%1"]; len(got) != 1 || got[0].Tokens != 100 || got[0].Window != 1_000_000 {
		t.Fatalf("told %+v, want once: 100 tokens of a 1M window", got)
	}
	r.Follow("%1", Claude, second, "claude-opus-4-8[1m]") // a new conversation
	r.Look()
	if got := rec.panes["%1"]; len(got) != 2 || got[1].Tokens != 150000 || got[1].Model != "claude-opus-4-8[1m]" {
		t.Fatalf("told %+v, want the new file's 150000 tokens, the hook's model", got)
	}
	r.Follow("%1", Claude, filepath.Join(dir, "new.jsonl"), "") // a new conversation, its file not written yet
	r.Look()
	if got := rec.panes["%1"]; len(got) != 3 || got[2].Known() {
		t.Errorf("told %+v: want the old file's figure over, nothing known", got)
	}
	if err := r.Follow("%2", "opencode", first, ""); err == nil {
		t.Error("Follow of an agent without a reader: no error")
	}
}

// A hook may come before the watcher's first look at its pane: what its file tells is told
// again until the watcher has the pane, and the model the hook named holds.
func TestReadersPaneNotWatchedYet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	appendTo(t, path, []byte(claudeAnswer("claude-opus-4-8", 300000)))
	r, rec := newReaders(t)
	rec.gone["%1"] = true
	r.Follow("%1", Claude, path, "claude-opus-4-8[1m]")
	r.Look()
	rec.gone["%1"] = false
	r.Look()
	r.Look()
	got := rec.panes["%1"]
	if len(got) != 2 || got[1].Window != 1_000_000 || got[1].UsedPct != wire.PercentOf(30) {
		t.Fatalf("told %+v: want told again once the pane is watched, 30%% of the named 1M window", got)
	}
}

// A Claude transcript's model does not say its window: a percent comes only from a model a
// hook named for this transcript; a new one followed without a model tells tokens alone.
func TestReadersModelNamedPerTranscript(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	appendTo(t, first, []byte(claudeAnswer("claude-opus-4-8", 100000)))
	appendTo(t, second, []byte(claudeAnswer("claude-opus-4-8", 100000)))
	r, rec := newReaders(t)
	r.Follow("%1", Claude, first, "")
	r.Look()
	r.Follow("%1", Claude, first, "claude-opus-4-8[1m]")
	r.Follow("%1", Claude, first, "") // a later hook of the same conversation
	r.Look()
	r.Follow("%1", Claude, second, "") // another conversation (/clear, or a model changed)
	r.Look()
	got := rec.panes["%1"]
	if len(got) != 3 {
		t.Fatalf("told %+v, want 3 contexts", got)
	}
	for i, want := range []wire.Percent{{}, wire.PercentOf(10), {}} {
		if got[i].UsedPct != want || got[i].Tokens != 100000 {
			t.Errorf("context %d: %+v, want 100000 tokens, percent %v", i, got[i], want)
		}
	}
}

// A pane whose hooks have not named the model since the daemon started takes the one its
// last context named (Hint): a 1M window stays one after a restart.
func TestReadersHint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	appendTo(t, path, []byte(claudeAnswer("claude-opus-4-8", 300000)))
	r, rec := newReaders(t)
	r.Hint = func(id string) string { return "claude-opus-4-8[1m]" }
	r.Follow("%1", Claude, path, "")
	r.Look()
	if got := rec.panes["%1"]; len(got) != 1 || got[0].Window != 1_000_000 {
		t.Fatalf("told %+v, want the hinted 1M window", got)
	}
}

// Run reads at once when poked (a hook), and a missing file is waited for, not an error
// told (Claude names its transcript before writing it): it tells that nothing is known
// yet, once, then its first answer.
func TestReadersRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	got := make(chan wire.Context, 4)
	var failed []string
	r := &Readers{Changed: func(id string, c wire.Context) bool { got <- c; return true },
		Failed: func(id, p string, err error) { failed = append(failed, err.Error()) }}
	ctx, stop := contextWithCancel(t)
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { stop(); <-done }()
	next := func() wire.Context {
		t.Helper()
		select {
		case c := <-got:
			return c
		case <-time.After(10 * time.Second):
			t.Fatal("nothing told within 10 s of a poke")
		}
		return wire.Context{}
	}
	r.Follow("%1", Claude, path, "")
	if c := next(); c.Known() {
		t.Errorf("a file not written yet told %+v", c)
	}
	appendTo(t, path, []byte(claudeAnswer("m", 4242)))
	r.Poke()
	if c := next(); c.Tokens != 4242 {
		t.Errorf("told %+v", c)
	}
	stop()
	<-done
	if len(failed) > 0 {
		t.Errorf("a file not there yet was told as failing: %v", failed)
	}
}

// Codex's session file is found from its thread's id, in the day's folder the id's time
// names, else in any day's.
func TestCodexSessionFile(t *testing.T) {
	home := t.TempDir()
	const id = "01a21e76-a7cf-7970-a872-5b95f59fc5c8" // made 2026-11-27T19:23:42Z
	day := filepath.Join(home, "sessions", "2026", "11", "27")
	other := filepath.Join(home, "sessions", "2025", "01", "02")
	for _, d := range []string{day, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join(day, "rollout-2026-11-27T19-23-42-"+id+".jsonl")
	appendTo(t, want, []byte("{}\n"))
	if got := CodexSessionFile(home, id); got != want {
		t.Errorf("found %q, want %q", got, want)
	}
	const elsewhere = "01a21e7e-661f-7872-ba6f-7971e1968d86"
	moved := filepath.Join(other, "rollout-x-"+elsewhere+".jsonl")
	appendTo(t, moved, []byte("{}\n"))
	if got := CodexSessionFile(home, elsewhere); got != moved {
		t.Errorf("found %q, want %q (another day's folder)", got, moved)
	}
	for _, bad := range []string{"", "*", "../../etc/passwd", "01a21e76-a7cf-7970-a872-*"} {
		if got := CodexSessionFile(home, bad); got != "" {
			t.Errorf("thread %q found %q", bad, got)
		}
	}
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, cancel
}
