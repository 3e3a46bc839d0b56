// Package shellwords splits a line into words as a POSIX shell would, for options that
// name a program or its flags, without ever running a shell.
package shellwords

import (
	"errors"
	"fmt"
	"strings"
)

// Split splits a command line into words as a POSIX shell would: blanks separate
// words, single quotes keep everything, double quotes keep all but \$ \` \" \\, a
// backslash outside quotes keeps the next character, and a word that starts with ~ or ~/
// starts with home. It refuses, rather than misreads, what a shell would do more with:
// variables, command substitution, globs, braces, pipes, redirections, lists, comments, a
// leading NAME=value. What it accepts a shell splits the same way (shellwords_test.go asks sh).
func Split(line, home string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
			continue
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("a ' is not closed")
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			end, err := doubleQuoted(&w, line, i+1)
			if err != nil {
				return nil, err
			}
			i = end
		case c == '\\':
			if i+1 == len(line) {
				return nil, errors.New(`it ends with a \`)
			}
			i++
			if line[i] == '\n' {
				continue // a continued line: the two are gone, the word goes on
			}
			w.WriteByte(line[i])
		case c == '~' && !inWord && (i+1 == len(line) || strings.IndexByte(" \t/", line[i+1]) >= 0):
			if home == "" {
				return nil, errors.New("~ stands for the home directory, and HOME is not set: write the path in full")
			}
			w.WriteString(home)
		case c == '#' && !inWord:
			return nil, unsupported(c, "a comment")
		case strings.IndexByte(shellSyntax, c) >= 0:
			return nil, unsupported(c, "shell syntax")
		default:
			w.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) > 0 && isAssignment(words[0]) && !strings.ContainsAny(line[:strings.IndexByte(line, '=')], `'"\`) {
		return nil, fmt.Errorf("%q would be a variable assignment in a shell: to set one, start with env (env %s PROGRAM)", words[0], words[0])
	}
	return words, nil
}

// shellSyntax are the characters a shell gives a meaning outside quotes that Split
// does not: expansions ($ ` * ? [ { } ~ past a word's start), operators (; & | < > ( )),
// and a newline, which ends a command.
const shellSyntax = "$`*?[{}~;&|<>()\n"

// doubleQuoted writes the text of a double-quoted string that starts at line[from] to w
// and returns the index of its closing quote.
func doubleQuoted(w *strings.Builder, line string, from int) (int, error) {
	for i := from; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			return i, nil
		case '$', '`':
			return 0, unsupported(c, "an expansion, even in double quotes")
		case '\\':
			// Inside double quotes a backslash escapes only these (and joins a continued
			// line); before anything else it is itself.
			if i+1 < len(line) && line[i+1] == '\n' {
				i++
				continue
			}
			if i+1 < len(line) && strings.IndexByte("$`\"\\", line[i+1]) >= 0 {
				i++
			}
			w.WriteByte(line[i])
		default:
			w.WriteByte(c)
		}
	}
	return 0, errors.New(`a " is not closed`)
}

func unsupported(c byte, what string) error {
	return fmt.Errorf("%q outside single quotes is %s, which paneherd does not run: quote it, or put what you need in a script", c, what)
}

// isAssignment reports whether word reads as NAME=value, which a shell takes for a
// variable of the command's environment, not for the command.
func isAssignment(word string) bool {
	eq := strings.IndexByte(word, '=')
	if eq <= 0 {
		return false
	}
	for i, c := range word[:eq] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
