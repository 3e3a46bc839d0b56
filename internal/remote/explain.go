package remote

import (
	"fmt"
	"strings"
)

// reading is one kind of ssh failure: any of its phrases in ssh's stderr, and what to
// tell a person, with the host's label for %[1]s and the ssh command that shows ssh's own
// words for %[2]s.
type reading struct {
	phrases []string
	say     string
}

// readings are tried in order: the first whose phrase ssh wrote explains it (a changed
// host key is a failed verification too, so it comes first).
var readings = []reading{
	{[]string{"REMOTE HOST IDENTIFICATION HAS CHANGED"},
		"the host key of %[1]s has CHANGED since ssh last saw it (a reinstalled host, or someone in between): check with its owner, then run `%[2]s` yourself for ssh's advice"},
	{[]string{"Host key verification failed", "host key is known for", "No matching host key"},
		"the host key of %[1]s is not known, and paneherd's ssh never asks (BatchMode): run `%[2]s` once yourself to check and accept it"},
	{[]string{"Too many authentication failures"},
		"%[1]s refused the login after too many keys were offered: name the one for it in ~/.ssh/config (IdentityFile, IdentitiesOnly yes)"},
	{[]string{"Permission denied"},
		"%[1]s refused the login: paneherd's ssh never asks for a password or a passphrase (BatchMode), so it needs a key without one or loaded in ssh-agent (ssh-add); `%[2]s -o BatchMode=yes true` shows whether it can"},
	{[]string{"Could not resolve hostname", "Name or service not known", "nodename nor servname", "Temporary failure in name resolution"},
		"cannot reach %[1]s: its name is not resolved: make it a Host in ~/.ssh/config, or use a name DNS knows"},
	{[]string{"Connection refused"},
		"cannot reach %[1]s: connection refused (no sshd listens on that port, or the host is still starting)"},
	{[]string{"No route to host", "Network is unreachable", "Host is down"},
		"cannot reach %[1]s: no route to it (the host or the network is down)"},
	{[]string{"not responding"}, // ServerAlive: "Timeout, server X not responding."
		"lost the connection to %[1]s: it stopped answering"},
	{[]string{"timed out", "Connection timed out"},
		"cannot reach %[1]s: the connection timed out (the host is down, or a firewall drops it)"},
	{[]string{"kex_exchange_identification", "Connection closed by", "Connection reset by"},
		"%[1]s closed the connection before login (sshd's MaxStartups, AllowUsers, or a firewall): `%[2]s` shows ssh's own words"},
	{[]string{"closed by remote host", "Broken pipe", "mux_client"},
		"lost the connection to %[1]s"},
	{[]string{"Bad configuration option", "Bad owner or permissions", "command-line line", "Can't open user config file", "no argument after keyword", "Unsupported option"},
		"ssh's configuration for %[1]s is wrong: %[3]s"},
}

// Explain turns an ssh of c's that failed, its exit code and stderr, into one line for a
// person: what went wrong with the host and what to do. It never returns ssh's raw
// stderr; at most one line of it, when nothing else fits.
func (c *Conn) Explain(exitCode int, stderr string) string {
	label, try := c.Host.Label, c.tryCommand()
	stderr = withoutMuxFallback(stderr)
	if exitCode == noPaneherdCode && strings.Contains(stderr, noPaneherd) {
		return fmt.Sprintf("no paneherd on %s: install it there (install.sh in a clone, or the tmux plugin); it is looked for in the PATH `%s` gets, ~/.local/bin, ~/go/bin and the tmux plugin directories", label, try)
	}
	last := LastLine([]byte(stderr))
	for _, r := range readings {
		if containsAny(stderr, r.phrases) {
			return fmt.Sprintf(r.say, label, try, last)
		}
	}
	if exitCode != 255 {
		return fmt.Sprintf("paneherd never started on %s: its login shell ended first with %d (an rc file that exits?): %s", label, exitCode, orNothing(last))
	}
	return fmt.Sprintf("ssh to %s failed: %s", label, orNothing(last))
}

// muxFallback are what ssh says when it could not be a session on the master and
// connects on its own instead (a socket a killed master left, a master that does not
// answer): never why it then failed, and their "Connection refused" would hide the why.
var muxFallback = []string{"Control socket connect(", "master hello exchange failed", "mux_client_hello_exchange"}

// withoutMuxFallback is stderr without the lines of muxFallback.
func withoutMuxFallback(stderr string) string {
	lines := strings.SplitAfter(stderr, "\n")
	kept := lines[:0]
	for _, line := range lines {
		if !containsAny(line, muxFallback) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

func containsAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func orNothing(line string) string {
	if line == "" {
		return "it said nothing"
	}
	return line
}

// tryCommand is the ssh command a person runs to see what paneherd's sees: the user's
// options and the host, each word quoted for a shell.
func (c *Conn) tryCommand() string {
	words := []string{"ssh"}
	for _, w := range c.userOptions {
		words = append(words, Quote(w))
	}
	if c.Host.Port != 0 {
		words = append(words, "-p", fmt.Sprint(c.Host.Port))
	}
	return strings.Join(append(words, Quote(c.Host.Dest)), " ")
}

// LastLine is the last line of text that is not blank, without control characters (a
// tab is a blank), cut to 200 bytes: what a command's stderr said last, for one line
// of an error.
func LastLine(text []byte) string {
	lines := strings.FieldsFunc(string(text), func(r rune) bool { return r == '\n' || r == '\r' })
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(strings.Map(func(r rune) rune {
			switch {
			case r == '\t':
				return ' '
			case r < ' ' || r == 0x7f:
				return -1
			}
			return r
		}, lines[i]))
		if line == "" {
			continue
		}
		if len(line) > 200 {
			line = strings.ToValidUTF8(line[:200], "") + "…"
		}
		return line
	}
	return ""
}
