package notify

import (
	"strings"
	"unicode"

	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/statusline"
)

// Outbound is n as it may leave paneherd for a backend that shows it outside tmux (a
// desktop, a terminal, a program, a web hook): what looks like a secret masked, and every
// control and invisible character gone from each text, so a pane's name or screen can
// neither leak a token nor put an escape sequence into a person's terminal. The body keeps
// its line breaks (a burst's summary has a line per worker); the rest are one line.
func Outbound(n Notification) Notification {
	n.Title = statusline.Clean(secrets.Mask(n.Title))
	n.Name = statusline.Clean(secrets.Mask(n.Name))
	n.Target = statusline.Clean(secrets.Mask(n.Target))
	n.Summary = statusline.Clean(secrets.Mask(n.Summary))
	lines := strings.Split(secrets.Mask(n.Body), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(statusline.Clean(l), unicode.IsSpace)
	}
	n.Body = strings.Join(lines, "\n")
	return n
}
