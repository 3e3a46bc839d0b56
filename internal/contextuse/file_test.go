package contextuse

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// windows is the builtin packs' window table, as the daemon gives it.
func windows(t *testing.T, agent string) func(string) int64 {
	t.Helper()
	p, err := packs.Load("").Get(agent)
	if err != nil {
		t.Fatal(err)
	}
	return p.Window
}

// recorded is a file the real CLI wrote in the agents lab (testdata/README.md).
func recorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// appendTo adds b to the file at path.
func appendTo(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func readNow(t *testing.T, f *File) {
	t.Helper()
	if err := f.Read(); err != nil {
		t.Fatal(err)
	}
}

// The real files, read while they grow: each is written a few hundred bytes at a time
// (lines cut anywhere) and read after each piece. The contexts told follow the
// conversation (Claude's compaction and Codex's included), and the last is whole.
func TestRecordedFiles(t *testing.T) {
	for _, tc := range []struct {
		agent, file, hint string
		tokens            []int64 // the tokens told, in order (a change of the sums alone aside)
		last              wire.Context
	}{
		{Claude, "claude-2.1.197.jsonl", "claude-opus-4-8[1m]", []int64{100, 150000, 950000, 765, 100},
			wire.Context{Source: wire.ContextTranscript, UsedPct: wire.PercentOf(0), Tokens: 100, Window: 1_000_000,
				Model: "claude-opus-4-8[1m]", TokensIn: 1_400_200, TokensOut: 300}},
		{Codex, "codex-0.169.0.jsonl", "", []int64{120, 150020, 240020, 8267, 240020},
			wire.Context{Source: wire.ContextSessionFile, UsedPct: wire.PercentOf(92), Tokens: 240020, Window: 258400,
				Model: "gpt-5.5", TokensIn: 870100, TokensOut: 100}},
		{Codex, "codex-0.171.0.jsonl", "", []int64{200020},
			wire.Context{Source: wire.ContextSessionFile, UsedPct: wire.PercentOf(77), Tokens: 200020, Window: 258400,
				Model: "gpt-5.5", TokensIn: 200000, TokensOut: 20}},
		{Gemini, "gemini-0.61.0.jsonl", "", []int64{700000, 300000},
			wire.Context{Source: wire.ContextSessionFile, UsedPct: wire.PercentOf(28), Tokens: 300000, Window: 1_048_576,
				Model: "gemini-3.1-pro-preview", TokensIn: 1_600_000, TokensOut: 80}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := recorded(t, tc.file)
			path := filepath.Join(t.TempDir(), "session.jsonl")
			f, err := Open(tc.agent, path)
			if err != nil {
				t.Fatal(err)
			}
			win := windows(t, tc.agent)
			var told []int64
			var last wire.Context
			for rest := data; len(rest) > 0; {
				n := min(len(rest), 333)
				appendTo(t, path, rest[:n])
				rest = rest[n:]
				readNow(t, f)
				if c := f.Context(win, tc.hint); c != last && c.Known() {
					told, last = append(told, c.Tokens), c
				}
			}
			if !slices.Equal(slices.Compact(told), tc.tokens) || last != tc.last {
				t.Errorf("told tokens %v, last %+v\nwant %v, %+v", told, last, tc.tokens, tc.last)
			}
			if f.BytesRead() != int64(len(data)) {
				t.Errorf("read %d bytes of a %d-byte file: each byte once", f.BytesRead(), len(data))
			}
		})
	}
}

// A last line without its newline is not read until the newline comes: the context is
// the lines' before it, then its own.
func TestTruncatedLastLine(t *testing.T) {
	data := recorded(t, "claude-2.1.197.jsonl")
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	lastAnswer := 35 // the answer after the compaction (100 tokens)
	head := bytes.Join(lines[:lastAnswer], nil)
	cut := len(lines[lastAnswer]) / 2
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, append(head, lines[lastAnswer][:cut]...))
	f, _ := Open(Claude, path)
	readNow(t, f)
	if c := f.Context(nil, ""); c.Tokens != 765 {
		t.Fatalf("with the answer's line cut: tokens %d, want 765 (the compaction's)", c.Tokens)
	}
	appendTo(t, path, lines[lastAnswer][cut:])
	readNow(t, f)
	if c := f.Context(nil, ""); c.Tokens != 100 {
		t.Fatalf("with its newline come: tokens %d, want 100", c.Tokens)
	}
}

// Another file put at the path (a rename over it) and a file truncated in place are read
// anew: the context and the sums are the new file's alone.
func TestReplacedFile(t *testing.T) {
	data := recorded(t, "claude-2.1.197.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	short := bytes.Join(lines[:12], nil) // up to the 150000-token answer
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	appendTo(t, path, data)
	f, _ := Open(Claude, path)
	readNow(t, f)

	appendTo(t, filepath.Join(dir, "new"), short)
	if err := os.Rename(filepath.Join(dir, "new"), path); err != nil {
		t.Fatal(err)
	}
	readNow(t, f)
	want := wire.Context{Source: wire.ContextTranscript, Tokens: 150000, Model: "claude-opus-4-8", TokensIn: 150100, TokensOut: 100}
	if c := f.Context(nil, ""); c != want {
		t.Errorf("replaced: %+v, want %+v", c, want)
	}

	if err := os.Truncate(path, int64(len(lines[0])+len(lines[1]))); err != nil {
		t.Fatal(err)
	}
	readNow(t, f)
	if c := f.Context(nil, ""); c.Known() {
		t.Errorf("truncated to lines without an answer: %+v, want nothing told", c)
	}
	appendTo(t, path, bytes.Join(lines[2:8], nil))
	readNow(t, f)
	if c := f.Context(nil, ""); c.Tokens != 100 || c.TokensIn != 100 {
		t.Errorf("grown again: %+v, want its first answer's 100 tokens", c)
	}
}

// A model the table gives a window smaller than its tokens is a model whose window the
// table does not know: no percent, never over 100.
func TestTokensOverWindow(t *testing.T) {
	data := recorded(t, "claude-2.1.197.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, bytes.Join(lines[:22], nil)) // to the 950000-token answer
	f, _ := Open(Claude, path)
	readNow(t, f)
	c := f.Context(windows(t, Claude), "claude-opus-4-8") // a hook named it without [1m]
	if _, known := c.UsedPct.Get(); known || c.Window != 200_000 || c.Tokens != 950000 {
		t.Errorf("%+v: want 950000 tokens, the table's 200000 window, no percent", c)
	}
	if c := f.Context(windows(t, Claude), ""); c.Window != 0 || !c.UsedPct.IsZero() {
		t.Errorf("no hook named the model: %+v, want its tokens alone", c)
	}
	if c := f.Context(windows(t, Claude), "claude-sonnet-4-5[1m]"); c.Model != "claude-opus-4-8" {
		t.Errorf("a hint naming another model was taken: %+v", c)
	}
}
