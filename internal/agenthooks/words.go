package agenthooks

import (
	"regexp"
	"strings"
)

// plainWord needs no quoting for a POSIX shell.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./+:%@=,-]+$`)

// shellWords joins words into a command line for sh -c (Claude Code and Gemini CLI run
// a hook's command with a shell): a word with anything special is single-quoted.
func shellWords(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if plainWord.MatchString(w) {
			out[i] = w
		} else {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// splitWords splits a command line as a shell would for plain words, '…', "…" and
// backslashes; ok is false for one it cannot split (an open quote). It only has to
// recognise the lines shellWords writes, and not mistake a user's line for one.
func splitWords(s string) (words []string, ok bool) {
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, false
			}
			i = j
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}
