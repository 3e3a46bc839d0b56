package notify

import (
	"strings"
	"testing"
)

func TestOutboundLeavesNoControlNoSecret(t *testing.T) {
	n := Outbound(Notification{
		Title:   "api\x1b]0;pwned\x07 needs you",
		Name:    "a\u202eb",
		Target:  "s:w\r.0",
		Summary: "Run \x1b[31m$(touch x)\x07\n\u2066?",
		Body:    "run $(touch x)? \"q\" \\ \x1b[2J\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\x9b",
	})
	for _, s := range []string{n.Title, n.Name, n.Target, n.Summary, n.Body} {
		for _, r := range s {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e' || r == '\u2066' {
				t.Errorf("%q keeps control %U", s, r)
			}
		}
	}
	if strings.Contains(n.Body, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("the token is in clear: %q", n.Body)
	}
	if strings.Count(n.Body, "\n") != 1 || strings.Contains(n.Title+n.Summary, "\n") {
		t.Errorf("lines: title %q summary %q body %q", n.Title, n.Summary, n.Body)
	}
	if !strings.Contains(n.Body, `run $(touch x)? "q" \`) {
		t.Errorf("plain text changed: %q", n.Body)
	}
}
