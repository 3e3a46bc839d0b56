package secrets

import "strings"

const keyKind = "private key"

// minRun is the shortest run of base64 taken for key material inside a key block: a
// PEM body line is 64 characters, an OpenSSH one 70, the last line of either shorter.
const minRun = 16

// appendKeyLines adds the key material of every private key block on the screen: from a
// "-----BEGIN … PRIVATE KEY-----" line, each run of base64 on the lines under it, up to
// the END line or the first line that is neither base64, a PEM header ("Proc-Type: …",
// PGP's "Version: …") nor the blank line between headers and body. The BEGIN and END
// lines stay: they say what was there and hold no secret. A block whose BEGIN line has
// scrolled off the screen is not recognised: its lines are base64 like any other.
func appendKeyLines(spans []span, text string) []span {
	if !strings.Contains(text, "PRIVATE KEY") {
		return spans
	}
	in, body := false, false
	for off := 0; off <= len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		line := text[off:end]
		switch {
		case isBegin(line):
			// A key printed on one line (JSON's "-----BEGIN…-----\nMIIE…"): its body
			// follows the BEGIN marker.
			from := off + strings.Index(line, "PRIVATE KEY") + len("PRIVATE KEY")
			to, closed := blockEnd(text, from, end)
			spans = appendRuns(spans, text, from, to)
			in, body = !closed, false
		case !in:
		case strings.Contains(line, "-----END "):
			to, _ := blockEnd(text, off, end)
			spans = appendRuns(spans, text, off, to)
			in = false
		case isHeader(line) || (!body && strings.TrimSpace(line) == ""):
		default:
			n := len(spans)
			spans = appendRuns(spans, text, off, end)
			body = len(spans) > n || strings.Contains(line, markerOpen+keyKind)
			in = body
		}
		off = end + 1
	}
	return spans
}

func isBegin(line string) bool {
	i := strings.Index(line, "-----BEGIN ")
	return i >= 0 && strings.Contains(line[i:], "PRIVATE KEY")
}

// blockEnd returns where key material on text[from:end] stops: at an END marker, if the
// line has one.
func blockEnd(text string, from, end int) (int, bool) {
	if i := strings.Index(text[from:end], "-----END "); i >= 0 {
		return from + i, true
	}
	return end, false
}

// isHeader reports whether line is a PEM or PGP armor header, "Name: value".
func isHeader(line string) bool {
	line = strings.TrimSpace(line)
	name, _, found := strings.Cut(line, ": ")
	if !found || name == "" {
		return false
	}
	for _, c := range name {
		if c != '-' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// appendRuns adds each run of at least minRun base64 characters in text[from:to] not
// masked already.
func appendRuns(spans []span, text string, from, to int) []span {
	for i := from; i < to; {
		if !isBase64(text[i]) {
			i++
			continue
		}
		j := i
		for j < to && isBase64(text[j]) {
			j++
		}
		n := j - i
		for j < to && j-i < n+2 && text[j] == '=' {
			j++
		}
		if n >= minRun && !strings.HasPrefix(text[j:], markerOpen) {
			spans = append(spans, span{start: i, end: j, kind: keyKind, rank: -1})
		}
		i = j
	}
	return spans
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}
