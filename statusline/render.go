// Package statusline renders pane states for the tmux status bar. It does no I/O: the
// snapshot file that `paneherd status` reads is internal/wire's.
package statusline

import (
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

// Options shape the rendered line. The zero value renders plain badges.
type Options struct {
	// Format of one badge; {name}, {state}, {icon}, {summary} and {context} are
	// replaced. Default DefaultFormat.
	Format string
	// Styles are tmux styles ("fg=green,bold") per state name; the badge is wrapped in
	// #[style] ... #[default]. Styles are the only markup that reaches tmux unescaped.
	Styles map[string]string
	// Icons per state name, for {icon}.
	Icons map[string]string
	// Show says which panes get a badge: ShowAll (""), ShowActive, ShowAttention.
	Show string
	// Layout is LayoutBadges ("") or LayoutCompact.
	Layout string
	// NameMax is the most characters of {name} a badge shows: a longer name is cut to
	// NameMax-1 and "…", so one long window name cannot push every other badge off the
	// line. Zero or less shows names whole.
	NameMax int
	// ContextAt is the context use (a percent of the window) from which a pane's shows:
	// {context} in a badge, a group of its own in the compact layout. 0: never.
	ContextAt int
}

// Off is what the status bar shows when no daemon runs for the server: it should say
// that paneherd is off rather than show stale badges or nothing.
const Off = "[paneherd: off]"

// StoreFailed goes in front of the line while the daemon's database refuses writes (a
// full disk, a file made immutable): the states shown are live, their history waits in
// the daemon's memory until a write works, and `paneherd doctor` says why.
const StoreFailed = "[store: write failed]"

// DefaultFormat is one badge when the user sets none.
const DefaultFormat = "[{name}: {state}{context}]"

// Render returns the status line of s at now: this server's panes in session, window and
// pane order, then each host of the fleet's (s.Hosts, in their order): its problem, if it
// has one, and its panes, named "host/name", stale ones marked (StaleMark) and dim. Every
// piece of text that comes from a pane or a host is escaped for tmux's format language.
func Render(s wire.Snapshot, opts Options, now time.Time) string {
	parts := append([]string{renderPanes(s.Panes, "", opts, now)}, hostParts(s.Hosts, s.Remote, opts, now)...)
	return joinParts(parts)
}

// renderPanes renders the panes shown at now; host, when not "", is the escaped label of
// the machine they are on: a compact group starts with it, and a badge's name with
// "host/".
func renderPanes(panes []wire.Pane, host string, opts Options, now time.Time) string {
	var shown []wire.Pane
	for _, p := range Sorted(panes) {
		if opts.shown(p, now) {
			shown = append(shown, p)
		}
	}
	if opts.Layout == LayoutCompact {
		if host == "" || len(shown) == 0 {
			return compact(shown, opts)
		}
		return host + " " + compact(shown, opts)
	}
	format := opts.Format
	if format == "" {
		format = DefaultFormat
	}
	badges := make([]string, 0, len(shown))
	for _, p := range shown {
		badges = append(badges, badge(p, host, format, opts))
	}
	return strings.Join(badges, " ")
}

func badge(p wire.Pane, host, format string, opts Options) string {
	text := expand(Escape(format), func(placeholder string) (string, bool) {
		switch placeholder {
		case "{name}":
			if host != "" {
				return host + "/" + shownName(p, opts.NameMax), true
			}
			return shownName(p, opts.NameMax), true
		case "{state}":
			return Escape(p.State), true
		case "{icon}":
			return Escape(opts.Icons[p.State]), true
		case "{summary}":
			return Escape(p.Summary), true
		case "{context}":
			if pct, ok := opts.contextShown(p); ok {
				return " " + strconv.Itoa(pct) + "%", true
			}
			return "", true
		}
		return "", false
	})
	return styled(text, opts.Styles[p.State])
}

// shownName is a pane's name as the line shows it: cleaned, cut to max, escaped. It is cut
// before it is escaped, so a '#' and the '#' that escapes it stay together.
func shownName(p wire.Pane, max int) string {
	return escapeHashes(Clip(Clean(p.Name), max))
}

// expand replaces each {placeholder} in format that value knows; anything else stays.
// (It runs for every badge of every publish: a strings.Replacer would be built each time.)
func expand(format string, value func(string) (string, bool)) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(format, '{')
		if open < 0 {
			b.WriteString(format)
			return b.String()
		}
		b.WriteString(format[:open])
		format = format[open:]
		end := strings.IndexByte(format, '}')
		if v, ok := value(format[:end+1]); end > 0 && ok {
			b.WriteString(v)
			format = format[end+1:]
			continue
		}
		b.WriteByte('{')
		format = format[1:]
	}
}

// Escape makes text safe inside a tmux format: a doubled '#' is a literal '#', so a
// window named "#(rm -rf ~)" or "#[fg=red]" prints as text and never runs or restyles;
// and control characters are cleaned out, so nothing can break the line.
func Escape(s string) string {
	return escapeHashes(Clean(s))
}

func escapeHashes(s string) string {
	return strings.ReplaceAll(s, "#", "##")
}

// EscapeFormat makes text safe as a format that tmux expands and then draws: a
// display-menu label, a command-prompt prompt, display-message text. Escape alone is not
// enough there: expansion turns "##" into "#" before drawing reads what is left, so "a##b"
// would show as "a#b", and a label ending in "#" would meet the "#[default]" tmux appends
// to a menu label after expanding it and show as "#[default]". The result must not be
// followed by a #[style] in the same format.
func EscapeFormat(s string) string { return tmux.EscapeExpanded(Clean(s)) }

// Clean makes text fit one line of a status bar or a table: tmux keeps control
// characters in window names set by new-window -n or by programs (a newline, an ESC), so
// tabs and newlines become spaces and other controls '?'. Invisible characters are
// dropped.
func Clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r):
			return '?'
		case Invisible(r):
			return -1
		}
		return r
	}, s)
}

// Invisible reports the characters that change how text reads without being seen, which
// paneherd drops from what it shows and what it types (deliver.Sanitize). Bidirectional
// controls: the embeddings and overrides (U+202A-U+202E), the isolates (U+2066-U+2069) and
// the marks (LRM, RLM, ALM) reorder the text after them, the rest of a status line
// included, and can make a name or a command read as something else. Zero-width ones:
// the space, the word joiner and the invisible operators (U+200B, U+2060-U+2064), the BOM,
// and the tags (U+E0000-U+E007F, text a model reads and a person does not see) make two
// strings that look alike differ. The joiners ZWJ and ZWNJ stay: emoji and scripts such
// as Persian need them.
func Invisible(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' ||
		r == '\u200e' || r == '\u200f' || r == '\u061c' ||
		r == '\u200b' || r >= '\u2060' && r <= '\u2064' || r == '\ufeff' ||
		r >= '\U000E0000' && r <= '\U000E007F'
}

// Clip shortens s to at most n characters, the last of them "…" when it cuts. It counts
// and cuts runes, so a UTF-8 sequence is never split. An n of zero or less leaves s whole.
func Clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return s[:cut] + "…"
}

// Sorted returns the panes ordered as tmux lists them: session, window, pane.
func Sorted(panes []wire.Pane) []wire.Pane {
	out := append([]wire.Pane(nil), panes...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		if a.WindowIndex != b.WindowIndex {
			return a.WindowIndex < b.WindowIndex
		}
		return a.PaneIndex < b.PaneIndex
	})
	return out
}
