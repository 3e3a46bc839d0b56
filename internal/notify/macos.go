package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/paneherd/paneherd/statusline"
)

// macOS has no session bus: Notification Center takes a notification from AppleScript's
// `display notification`, run by osascript, the way beeep ends up taking there too (its
// terminal-notifier way needs an icon file). paneherd runs osascript itself, not beeep:
// beeep's darwin code is built only on darwin, so this path could not run in the tests,
// which run on Linux; beeep quotes with Go's %q, whose \x and \u escapes are not
// AppleScript's; and its exec takes no context, so a hung osascript would hold the
// notifier.

// ErrNoOsascript is returned on macOS when osascript, which posts the notifications, is
// not on PATH.
var ErrNoOsascript = errors.New("no osascript to post macOS notifications")

// osascriptPosts is what FindBus says osascript is for.
const osascriptPosts = "osascript (macOS Notification Center)"

// criticalSound is the alert sound a critical notification plays, so a worker that waits
// for a person is heard, not only seen: `sound name` takes the name of a sound in a
// Library/Sounds folder, and this one every Mac has in /System/Library/Sounds.
const criticalSound = "Glass"

// osascriptWaitDelay bounds the wait for osascript's output once it is killed.
const osascriptWaitDelay = time.Second

// OnMacOS says whether d takes the macOS path (osascript, no bus).
func (d Desktop) OnMacOS() bool {
	goos := d.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	return goos == "darwin"
}

// findOsascript is FindBus on macOS: the osascript on PATH.
func (d Desktop) findOsascript() (FoundBus, error) {
	path, err := exec.LookPath("osascript")
	if err != nil {
		return FoundBus{}, fmt.Errorf("%w: it is not on %s PATH (macOS keeps it in /usr/bin)", ErrNoOsascript, d.whose())
	}
	return FoundBus{Addr: path, From: osascriptPosts}, nil
}

// sendMacOS posts n to Notification Center through osascript, with no shell between:
// the text reaches AppleScript only as quoted string literals (appleScriptText).
func (d Desktop) sendMacOS(ctx context.Context, n Notification) error {
	found, err := d.findOsascript()
	if err != nil {
		return fmt.Errorf("desktop: %w; put /usr/bin on the PATH tmux starts paneherd with, or set -g @paneherd-notify-backend tmux", err)
	}
	ctx, cancel := context.WithTimeout(ctx, desktopTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, found.Addr, "-e", notificationScript(Outbound(n)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = osascriptWaitDelay
	err = cmd.Run()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("desktop: osascript did not post the notification in time (%w)", ctx.Err())
	}
	if msg := osascriptMessage(stderr.String()); msg != "" {
		return fmt.Errorf("desktop: osascript: %w: %s", err, msg)
	}
	return fmt.Errorf("desktop: osascript: %w", err)
}

// notificationScript is the AppleScript that shows n, with a sound when it is critical.
func notificationScript(n Notification) string {
	script := "display notification " + appleScriptText(n.Body) + " with title " + appleScriptText(n.Title)
	if n.Critical {
		script += " sound name " + appleScriptText(criticalSound)
	}
	return script
}

// appleScriptText is s as an AppleScript string literal. A backslash and a double quote
// are the only characters that could end the literal or start an escape, so each gets a
// backslash; newline, return and tab become AppleScript's \n, \r and \t, so the script
// stays one line. AppleScript knows no other escape, and needs none: any other character
// stands for itself inside the quotes.
func appleScriptText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// osascriptMessage is the first line of osascript's error output, where AppleScript says
// what went wrong, cleaned and clipped for a log.
func osascriptMessage(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return statusline.Clip(statusline.Clean(line), 200)
}
