package metrics

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// contentType is the text exposition format, version 0.0.4: what Prometheus asks for
// first and what every scraper reads.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// write appends the family to b: HELP and TYPE lines, then one line per series, sorted
// by labels so the text is the same for the same counts. A family with no series is
// left out. The HELP texts are paneherd's own, with no backslash or line feed to escape.
func (f *family) write(b *bytes.Buffer) {
	ss := f.read()
	if len(ss) == 0 {
		return
	}
	slices.SortFunc(ss, func(x, y series) int { return strings.Compare(x.labels, y.labels) })
	b.WriteString("# HELP " + f.name + " " + f.help + "\n")
	b.WriteString("# TYPE " + f.name + " " + f.kind + "\n")
	for _, s := range ss {
		b.WriteString(f.name + s.labels + " " + strconv.FormatUint(s.value, 10) + "\n")
	}
}

// labels is label pairs (name, value, name, value, …) as the text writes them after a
// metric's name: {name="value",…}, values escaped; nothing for no pairs.
func labels(pairs ...string) string {
	if len(pairs) == 0 {
		return ""
	}
	var b strings.Builder
	sep := "{"
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString(sep + pairs[i] + `="` + labelValue(pairs[i+1]) + `"`)
		sep = ","
	}
	b.WriteByte('}')
	return b.String()
}

// labelValue escapes v for a label value: the text format escapes backslash, double quote
// and line feed, and nothing else. The text is UTF-8, so invalid bytes become U+FFFD. A
// worker name or an event may hold any of these. (A loop, not a strings.Replacer held in
// a package variable: building one would be init work in every paneherd process.)
func labelValue(v string) string {
	v = strings.ToValidUTF8(v, "\uFFFD")
	if !strings.ContainsAny(v, "\\\"\n") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
