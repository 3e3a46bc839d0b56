// Package secrets masks what looks like a secret in text read from a terminal screen,
// before that text leaves paneherd (an MCP client reading a worker's screen, a language
// model). It works line by line on what a person would see: nothing it does crosses a
// line, so a masked screen has the lines of the screen it came from.
//
// It does no work at package init: paneherd's hooks start the binary many times a minute,
// so the patterns are compiled at the first call (rules.go).
package secrets

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// markerOpen starts every marker: "sk-a…[masked openai key]", "…[masked password]".
// A span followed by it was masked already, which is what keeps Mask idempotent.
const markerOpen = "…[masked "

// keep is how many characters of a secret a marker shows, and only of a secret of at
// least keepMin characters (at most a quarter of it), and never of a password or a
// private key: for a key with a fixed prefix ("sk-a", "ghp_", "AKIA") it tells a reader
// which key it was and reveals nothing of its random part worth having.
const (
	keep    = 4
	keepMin = 16
)

// Mask returns text with every secret-looking span replaced by a marker that names its
// kind and keeps at most its first 4 characters: "sk-a…[masked anthropic key]". The
// rest of each line is left as it was; line count is kept; masking masked text changes
// nothing.
func Mask(text string) string {
	spans := find(text)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.start])
		b.WriteString(marker(text[s.start:s.end], s))
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// Count reports how many spans Mask would replace.
func Count(text string) int {
	return len(find(text))
}

// span is one secret in the text: bytes [start, end), what kind, whether its marker may
// keep a prefix, and the rule's rank (lower wins when two rules find the same text).
type span struct {
	start, end int
	kind       string
	prefix     bool
	rank       int
}

func marker(secret string, s span) string {
	shown := ""
	if s.prefix && utf8.RuneCountInString(secret) >= keepMin {
		n := 0
		for i := range secret {
			if n == keep {
				shown = secret[:i]
				break
			}
			n++
		}
	}
	return shown + markerOpen + s.kind + "]"
}

// find returns every secret in text, in order, none overlapping.
func find(text string) []span {
	var spans []span
	lower := lowerASCII(text)
	for rank, r := range rules() {
		spans = r.appendSpans(spans, text, lower, rank)
	}
	spans = appendKeyLines(spans, text)
	return merge(spans)
}

// merge orders spans and joins overlapping ones: two rules finding the same key (an
// `OPENAI_API_KEY=sk-…` is both an assignment and an OpenAI key) make one marker, named
// by the better ranked of those starting first.
func merge(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.rank - b.rank
	})
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}
