// Package remote runs paneherd on other hosts through the user's own OpenSSH: one
// connection per host, held by the one long-lived command run there (the daemon's
// follow, MasterCommand) as its ControlMaster, every other command a session on it
// while it runs (else a connection of its own, which ends with the command) but a
// person's terminal (TerminalCommand), always a connection of its own, each
// argument quoted so it arrives as one literal word whatever the login shell, and ssh's
// failures turned into one line that says what to do (ARCHITECTURE.md §1).
// paneherd opens no port and never prompts: BatchMode=yes.
package remote

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Host is one host of @paneherd-hosts.
type Host struct {
	// Label is the host part: shown in the bar and written before the colon of
	// HOST:TARGET. Letters, digits, '.', '-' and '_'.
	Label string
	// Dest is what ssh is given: a name its config or DNS knows, or user@name.
	Dest string
	// Port is from host:port; 0 leaves it to ssh (its config, else 22).
	Port int
}

// A label is written into tmux formats (#, {, }, ',' mean something there) and into
// HOST:TARGET (':' ends it); it never starts with '-', which ssh would take for an option.
var (
	labelPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)
	userPattern  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)
)

// ParseHosts reads @paneherd-hosts: words separated by blanks, each name, user@name,
// name:port or user@name:port. It refuses two hosts with one label (labels compare as
// host names do, case aside) and labels the bar or HOST:TARGET could not hold, saying
// what to do instead.
func ParseHosts(s string) ([]Host, error) {
	var hosts []Host
	first := map[string]string{} // lower-case label -> the word that gave it
	for _, word := range strings.Fields(s) {
		h, err := parseHost(word)
		if err != nil {
			return nil, fmt.Errorf("@paneherd-hosts: %w", err)
		}
		key := strings.ToLower(h.Label)
		if other, ok := first[key]; ok {
			return nil, fmt.Errorf("@paneherd-hosts: %q and %q would both be %s in the bar and in %s:TARGET: give one a Host alias of its own in ~/.ssh/config and list the alias", other, word, h.Label, h.Label)
		}
		first[key] = word
		hosts = append(hosts, h)
	}
	return hosts, nil
}

func parseHost(word string) (Host, error) {
	user, rest, hasUser := strings.Cut(word, "@")
	if !hasUser {
		user, rest = "", word
	}
	if strings.HasPrefix(rest, "[") || strings.Count(rest, ":") > 1 {
		return Host{}, fmt.Errorf("%q: an IPv6 address cannot be written before the colon of HOST:TARGET: give it a Host alias in ~/.ssh/config (HostName, Port) and list the alias", word)
	}
	name, portText, hasPort := strings.Cut(rest, ":")
	h := Host{Label: name, Dest: name}
	if hasUser {
		if !userPattern.MatchString(user) {
			return Host{}, fmt.Errorf("%q: the user %q is not a user name (letters, digits, '.', '-', '_'; not '-' first): give the host a Host alias with a User line in ~/.ssh/config and list the alias", word, user)
		}
		h.Dest = user + "@" + name
	}
	if !labelPattern.MatchString(name) {
		return Host{}, fmt.Errorf("%q: %q cannot name a host in the bar and in HOST:TARGET (letters, digits, '.', '-', '_'; not '-' or '.' first): give it a Host alias in ~/.ssh/config and list the alias", word, name)
	}
	if hasPort {
		port, err := strconv.Atoi(portText)
		if err != nil || port < 1 || port > 65535 || strconv.Itoa(port) != portText {
			return Host{}, fmt.Errorf("%q: the port %q is not a number from 1 to 65535", word, portText)
		}
		h.Port = port
	}
	return h, nil
}
