package secrets

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// rule is one kind of secret: a pattern whose group holds the secret (the rest of the
// match is context: a variable's name, "Bearer "), and the literal texts, lower case,
// one of which a line must hold for the pattern to match in it (a line with no "sk-"
// runs no OpenAI pattern).
type rule struct {
	kind   string // in the marker; "" for an assignment, named by its name (assignedKind)
	re     *regexp.Regexp
	value  int // the group holding the secret
	name   int // the group holding an assignment's name, 0 if none
	prefix bool
	hints  []string
	ok     func(string) bool // nil: every match is a secret
	line   func([]byte) bool // nil: every line holding a hint is read
}

// Parts shared by the patterns. No part matches a newline, so no span crosses a line.
const (
	sp  = `[ \t]*`
	sgr = `(?:\x1b\[[0-9;:]*m)*` // colours between a name and its value in a capture -e
	// value: an unquoted or quoted assigned value, up to a quote, a space, a separator
	// of the surrounding syntax, a bracket (code: `token=get_token()` is no secret), a
	// box border of the TUI drawing it, an escape, or a marker's "…".
	value = `([^\s"'` + "`" + `()\[\]{}<>,;&|│┃║\x1b…]+)`
	// after: what may follow an unquoted value.
	after = `(?:[\s"',;&)}\]>|│┃║\x1b]|$)`
)

// assignName is a name whose value is a secret: password, passwd, passphrase, secret,
// token, apikey with any prefix (`client_secret`, `GITHUB_TOKEN`, `db.password`,
// `PGPASSWORD`), the
// few lower-case keys that are keys (`api_key`, `secret-key`), and any upper-case
// `*_KEY`, `*_PASS`, `*_PWD` (an environment variable: `DB_PASS`, `MYSQL_PWD`). Lower-case `*_key` is left out: in code it is
// `sort_key`, `primary_key`.
const assignName = `((?i:[a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|apikey|(?:api|access|secret|private|auth|client|master|signing|encryption)[_-]key))|[A-Z0-9]+(?:_[A-Z0-9]+)*_(?:KEY|PASS|PWD))\b`

// flagName is a long option's name: `--password`, `--api-key`, `--auth-token`.
const flagName = `((?i:(?:[a-z0-9]+-)*(?:password|passwd|passphrase|secret|token|apikey|(?:api|access|secret|private|auth)-key)))\b`

var assignHints = []string{"pass", "pwd", "secret", "token", "key"}

// commandWord is a command's name as a word of a shell line (`mysql`, `/usr/bin/mysql`,
// `docker exec db mysql`) and the blanks after it.
func commandWord(names string) string { return `(?:^|[^A-Za-z0-9_.-])(?:` + names + `)[ \t]+` }

// anyArgs are a command's arguments before the one that gives a password, within the one
// command (no |, ;, &).
const anyArgs = `(?:[^|;&]*?[ \t])?`

// sshpassOptions are the options sshpass takes before -p: -f FILE, -d FD, -P PROMPT, -e, -v.
const sshpassOptions = `(?:-(?:[fdP][ \t]*\S+|e\S*|v+)[ \t]+)*`

var rules = sync.OnceValue(func() []rule {
	return []rule{
		{kind: "anthropic key", re: regexp.MustCompile(`\b(sk-ant-[A-Za-z0-9_-]{20,})`),
			value: 1, prefix: true, hints: []string{"sk-ant-"}, ok: hasDigit},
		{kind: "openai key", re: regexp.MustCompile(`\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})`),
			value: 1, prefix: true, hints: []string{"sk-"}, ok: hasDigit},
		{kind: "github token", re: regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`),
			value: 1, prefix: true, hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
		{kind: "aws key id", re: regexp.MustCompile(`\b((?:AKIA|ASIA)[A-Z0-9]{16})\b`),
			value: 1, prefix: true, hints: []string{"akia", "asia"}},
		{kind: "aws secret", re: regexp.MustCompile(`(?i)\baws_?secret_?access_?key["']?` + sgr + sp + `[:=]` + sp + `["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
			value: 1, prefix: true, hints: []string{"aws"}},
		{kind: "google api key", re: regexp.MustCompile(`\b(AIza[0-9A-Za-z_-]{35})`),
			value: 1, prefix: true, hints: []string{"aiza"}},
		{kind: "gitlab token", re: regexp.MustCompile(`\b(glpat-[A-Za-z0-9_-]{20,})`),
			value: 1, prefix: true, hints: []string{"glpat-"}},
		{kind: "npm token", re: regexp.MustCompile(`\b(npm_[A-Za-z0-9]{36})\b`),
			value: 1, prefix: true, hints: []string{"npm_"}},
		{kind: "hugging face token", re: regexp.MustCompile(`\b(hf_[A-Za-z0-9]{30,})`),
			value: 1, prefix: true, hints: []string{"hf_"}},
		{kind: "docker token", re: regexp.MustCompile(`\b(dckr_pat_[A-Za-z0-9_-]{20,})`),
			value: 1, prefix: true, hints: []string{"dckr_pat_"}},
		{kind: "slack token", re: regexp.MustCompile(`\b(xox[abprs]-[A-Za-z0-9-]{10,})`),
			value: 1, prefix: true, hints: []string{"xox"}},
		{kind: "stripe key", re: regexp.MustCompile(`\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})`),
			value: 1, prefix: true, hints: []string{"_live_", "_test_"}},
		{kind: "jwt", re: regexp.MustCompile(`\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)`),
			value: 1, prefix: true, hints: []string{"eyj"}},
		{kind: "bearer token", re: regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)`),
			value: 1, prefix: true, hints: []string{"bearer"}, ok: hasDigit},
		{kind: "auth header", re: regexp.MustCompile(`(?i)\bauthorization["']?` + sgr + sp + `:` + sp + `(?:basic|token)[ \t]+([A-Za-z0-9._~+/-]{8,}=*)`),
			value: 1, hints: []string{"authorization"}}, // Basic: user:password in base64
		{kind: "password", re: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:([^\s:/@\x1b…]+)@`),
			value: 1, hints: []string{"://"}, ok: notPlaceholder},
		// mysql -pPASS, mysqldump -u root -p'PASS': the password glued to -p (with a space
		// between, mysql asks for it and the next word is a database; -P is the port).
		{kind: "password", re: regexp.MustCompile(commandWord(`mysql[a-z]*|mariadb(?:-[a-z]+)?`) + anyArgs + `-p["']?` + value + after),
			value: 1, hints: []string{"mysql", "mariadb"}, line: holds("-p"), ok: notPlaceholder},
		// curl -u user:PASS (--user; -U, --proxy-user for the proxy): after the first colon.
		{kind: "password", re: regexp.MustCompile(commandWord(`curl`) + anyArgs + `(?:-u|-U|--user|--proxy-user)[ \t]*["']?[^\s:"']*:` + value + after),
			value: 1, hints: []string{"curl"}, line: holds("-u"), ok: notPlaceholder},
		// sshpass -p PASS, among sshpass's own options only: a -p after them is the
		// command's (ssh's port).
		{kind: "password", re: regexp.MustCompile(commandWord(`sshpass`) + sshpassOptions + `-p[ \t]*["']?` + value + after),
			value: 1, hints: []string{"sshpass"}, line: holds("-p"), ok: notPlaceholder},
		// Azure connection strings: AccountKey= (storage), SharedAccessKey= (Service Bus,
		// Event Hubs), base64.
		{kind: "azure key", re: regexp.MustCompile(`(?i)\b(?:Account|SharedAccess)Key["']?` + sp + `[:=]` + sp + `["']?([A-Za-z0-9+/]{20,}={0,2})`),
			value: 1, hints: []string{"accountkey", "sharedaccesskey"}},
		// NAME=value, NAME="value", NAME = "value" (env, CLI, URL query, code).
		{re: regexp.MustCompile(`\b` + assignName + sgr + `(?:=["']?|` + sp + `=` + sp + `["'])` + sgr + value + after),
			value: 2, name: 1, hints: assignHints, line: equals, ok: notPlaceholder},
		// "name": "value", name: "value" (JSON, YAML).
		{re: regexp.MustCompile(`\b` + assignName + `["']?` + sgr + sp + `:` + sp + sgr + `["']` + value + `["']`),
			value: 2, name: 1, hints: assignHints, line: colon, ok: notPlaceholder},
		// name: value, the last word on its line (YAML, a dialog's "API_KEY: …"): in
		// prose a colon is followed by more words ("the token: it expires soon").
		{re: regexp.MustCompile(`(?m)\b` + assignName + sgr + sp + `:` + sp + sgr + value + sgr + sp + `(?:[│┃║|]|$)`),
			value: 2, name: 1, hints: assignHints, line: colon, ok: notPlaceholder},
		// --password hunter2 (the = form is an assignment above).
		{re: regexp.MustCompile(`(?m)(?:^|[ \t])--` + flagName + `[ \t]+["']?` + value + after),
			value: 2, name: 1, hints: []string{"--"}, line: namesSecret, ok: notPlaceholder},
	}
})

// appendSpans adds the rule's matches in text, which lower is in lower case (ASCII
// letters only, so offsets agree). A pattern runs only on the lines holding one of its
// hints, and passing its line test: Go's regexp reads every byte it is given, slowly
// for a pattern that starts with no literal (docs/performance.md#small-costs), and a
// line a pattern has no reason to read costs nothing.
func (r rule) appendSpans(spans []span, text string, lower []byte, rank int) []span {
	for _, h := range r.hints {
		for from := 0; from < len(lower); {
			i := bytes.Index(lower[from:], []byte(h))
			if i < 0 {
				break
			}
			i += from
			start := bytes.LastIndexByte(lower[:i], '\n') + 1
			end := bytes.IndexByte(lower[i:], '\n')
			if end < 0 {
				end = len(lower)
			} else {
				end += i
			}
			from = end + 1
			if r.line != nil && !r.line(lower[start:end]) {
				continue
			}
			spans = r.appendLine(spans, text[start:end], start, rank)
		}
	}
	return spans
}

// appendLine adds the rule's matches in line, which starts at base in the text.
func (r rule) appendLine(spans []span, line string, base, rank int) []span {
	for _, m := range r.re.FindAllStringSubmatchIndex(line, -1) {
		start, end := m[2*r.value], m[2*r.value+1]
		if start < 0 || strings.HasPrefix(line[end:], markerOpen) {
			continue
		}
		secret := line[start:end]
		kind, prefix := r.kind, r.prefix
		if r.name > 0 {
			kind = assignedKind(line[m[2*r.name]:m[2*r.name+1]])
			prefix = kind != "password"
			if kind != "password" && isNumber(secret) {
				continue // max_token=4096
			}
		}
		if r.ok != nil && !r.ok(secret) {
			continue
		}
		spans = append(spans, span{start: base + start, end: base + end, kind: kind, prefix: prefix, rank: rank})
	}
	return spans
}

// lowerASCII returns text with its ASCII letters in lower case, byte for byte.
func lowerASCII(text string) []byte {
	b := []byte(text)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// equals and colon are the line tests of assignments: the sign somewhere.
func equals(line []byte) bool { return bytes.IndexByte(line, '=') >= 0 }
func colon(line []byte) bool  { return bytes.IndexByte(line, ':') >= 0 }

// holds is the line test of a command's option: the option somewhere (in lower case).
func holds(option string) func([]byte) bool {
	return func(line []byte) bool { return bytes.Contains(line, []byte(option)) }
}

// namesSecret is the line test of a long option: one of the names.
func namesSecret(line []byte) bool {
	for _, h := range assignHints {
		if bytes.Contains(line, []byte(h)) {
			return true
		}
	}
	return false
}

// assignedKind names an assigned secret by its name.
func assignedKind(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "pass"), strings.HasSuffix(n, "pwd"):
		return "password"
	case strings.HasSuffix(n, "token"):
		return "token"
	case strings.HasSuffix(n, "secret"):
		return "secret"
	}
	return "key"
}

func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}

func isNumber(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// notPlaceholder reports whether an assigned value may be a secret, and not a
// reference to one (`$TOKEN`, `%PASSWORD%`), a path to one (`SSH_KEY=~/.ssh/id_ed25519`),
// a flag, a literal of code, or what a program shows in place of one (`****`, `sk-...`
// is a prefix shown, not a key).
func notPlaceholder(v string) bool {
	if strings.ContainsAny(v[:1], "$%-/~.*") {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "nil", "none", "undefined", "yes", "no", "redacted", "hidden":
		return false
	}
	return strings.Trim(v, "*xX.•·-_") != "" && !strings.HasSuffix(v, "...")
}
