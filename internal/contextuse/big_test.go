package contextuse

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// claudeAnswer is a transcript line of an answer whose request had tokens of input.
func claudeAnswer(id string, tokens int64) string {
	return fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"message":{"id":%q,"type":"message","role":"assistant","model":"claude-opus-4-8","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":7}},"type":"assistant"}`+"\n", id, tokens)
}

// bigTranscript writes a transcript of about size bytes: answers between tools' long
// outputs, as a long session's is, the last answer's request having last tokens.
func bigTranscript(t testing.TB, path string, size int, last int64) {
	t.Helper()
	output := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` + strings.Repeat("x", 60<<10) + `"}]}}` + "\n"
	var block bytes.Buffer
	for i := 0; block.Len() < 1<<20; i++ {
		block.WriteString(claudeAnswer(fmt.Sprintf("msg_%d", i), int64(1000+i)))
		block.WriteString(output)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for n := 0; n < size; n += block.Len() {
		if _, err := f.Write(block.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.WriteString(claudeAnswer("msg_last", last)); err != nil {
		t.Fatal(err)
	}
}

// A transcript met for the first time costs its last StartTail bytes, not the whole file;
// what it grows by next costs that much. Its sums are not known (its start was never
// read); its context is its last answer's. It is 3 StartTails long, or as many MB as
// PANEHERD_BIG_TRANSCRIPT_MB says (200 for docs/performance.md#context-files).
func TestBigTranscriptReadCost(t *testing.T) {
	size := 3 * StartTail
	if mb, err := strconv.Atoi(os.Getenv("PANEHERD_BIG_TRANSCRIPT_MB")); err == nil && mb > 0 {
		size = mb << 20
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	bigTranscript(t, path, size, 123456)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Open(Claude, path)
	start := time.Now()
	readNow(t, f)
	took := time.Since(start)
	if f.BytesRead() > StartTail {
		t.Errorf("first read of a %d-byte file read %d bytes, want at most StartTail (%d)", fi.Size(), f.BytesRead(), StartTail)
	}
	c := f.Context(windows(t, Claude), "")
	if c.Tokens != 123456 || c.TokensIn != 0 || c.TokensOut != 0 {
		t.Errorf("context %+v: want the last answer's 123456 tokens, no sums", c)
	}
	t.Logf("first read of %d MB: %d bytes read in %v", fi.Size()>>20, f.BytesRead(), took)

	before := f.BytesRead()
	next := claudeAnswer("msg_next", 130000)
	appendTo(t, path, []byte(next))
	start = time.Now()
	readNow(t, f)
	if got := f.BytesRead() - before; got != int64(len(next)) {
		t.Errorf("a line appended cost %d bytes, want its %d", got, len(next))
	}
	if c := f.Context(nil, ""); c.Tokens != 130000 {
		t.Errorf("after the line appended: %d tokens, want 130000", c.Tokens)
	}
	t.Logf("next read: %d bytes in %v", f.BytesRead()-before, time.Since(start))
}

// A line longer than MaxLine (a tool's whole output) is dropped, never kept: the lines
// after it are read.
func TestLongLineDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendTo(t, path, []byte(claudeAnswer("a", 1000)))
	f, _ := Open(Claude, path)
	readNow(t, f)
	long := claudeAnswer("b", 2000)
	long = long[:len(long)-2] + `,"pad":"` + strings.Repeat("y", MaxLine) + `"}` + "\n"
	appendTo(t, path, []byte(long))
	for fi, _ := os.Stat(path); f.tail.offset < fi.Size(); { // MaxRead a look
		readNow(t, f)
	}
	appendTo(t, path, []byte(claudeAnswer("c", 3000)))
	readNow(t, f)
	if c := f.Context(nil, ""); c.Tokens != 3000 || c.TokensIn != 4000 {
		t.Errorf("%+v: want the line after the long one (3000 tokens), the long one not counted (in 4000)", c)
	}
	if cap(f.tail.line) > MaxLine {
		t.Errorf("kept %d bytes of a line", cap(f.tail.line))
	}
}

// BenchmarkFirstReadOfAnswers is the worst first read: StartTail bytes of nothing but
// answers, each line parsed (docs/performance.md#context-files).
func BenchmarkFirstReadOfAnswers(b *testing.B) {
	path := filepath.Join(b.TempDir(), "answers.jsonl")
	var buf bytes.Buffer
	for i := 0; buf.Len() < StartTail; i++ {
		buf.WriteString(claudeAnswer(fmt.Sprintf("msg_%d", i), int64(i)))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		f, _ := Open(Claude, path)
		if err := f.Read(); err != nil {
			b.Fatal(err)
		}
	}
}
