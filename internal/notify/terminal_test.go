package notify

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// hostile is a notification whose every text a screen or a pane's name could carry: a
// title that ends the sequence (BEL, ESC \, C1 ST) and starts one of its own, a ';' that
// would start OSC 777's body, a command substitution, bidi controls, a raw 0x9c byte.
func hostile() Notification {
	return Notification{
		At:       time.Unix(1_700_000_000, 5),
		Title:    "api\x07\x1b\\\x1b]0;pwned\x07 needs; you\u202e",
		Body:     "run $(touch x)? \"q\" \\\x9c\xc2\x9c\x1b[2J\n\nin work:1.0",
		Critical: true,
	}
}

func TestTerminalSequence(t *testing.T) {
	id := "paneherd-" + strconv.FormatInt(1_700_000_000_000_000_005, 36)
	if got := kittyID(hostile().At); got != id {
		t.Fatalf("kittyID = %q, want %q", got, id)
	}
	// Outbound: each control a '?', bidi gone, the raw byte U+FFFD; then per protocol.
	title := "api??\\?]0;pwned? needs; you"
	body := "run $(touch x)? \"q\" \\\ufffd??[2J · in work:1.0"
	noSemi := func(s string) string { return strings.ReplaceAll(s, ";", ",") }
	tests := []struct {
		proto  string
		nested bool
		want   string
	}{
		{OSC9, false, "\x1b]9;" + noSemi(title+": "+body) + "\x1b\\"},
		{OSC777, false, "\x1b]777;notify;" + noSemi(title) + ";" + noSemi(body) + "\x1b\\"},
		{OSC99, false, "\x1b]99;i=" + id + ":u=2:d=0;" + title + "\x1b\\\x1b]99;i=" + id + ":p=body;" + body + "\x1b\\"},
		{OSC777, true, "\x1bPtmux;\x1b\x1b]777;notify;" + noSemi(title) + ";" + noSemi(body) + "\x1b\x1b\\\x1b\\"},
	}
	plain := Notification{At: hostile().At, Title: "api finished"}
	for _, tt := range []struct{ proto, want string }{
		{OSC9, "\x1b]9;api finished\x1b\\"},
		{OSC99, "\x1b]99;i=" + id + ";api finished\x1b\\"},
	} {
		if got := string(clientRoute{proto: tt.proto}.sequence(plain)); got != tt.want {
			t.Errorf("%s without a body:\n got %q\nwant %q", tt.proto, got, tt.want)
		}
	}
	for _, tt := range tests {
		got := string(clientRoute{proto: tt.proto, nested: tt.nested}.sequence(Outbound(hostile())))
		if got != tt.want {
			t.Errorf("%s nested=%v:\n got %q\nwant %q", tt.proto, tt.nested, got, tt.want)
		}
	}
}

func TestTerminalSequenceClipsLongText(t *testing.T) {
	n := Notification{Title: strings.Repeat("t", 500), Body: strings.Repeat("é", 5000)}
	seq := clientRoute{proto: OSC777}.sequence(Outbound(n))
	if len(seq) > 1200 {
		t.Errorf("sequence of %d bytes: one small write() wanted", len(seq))
	}
	if !strings.HasSuffix(string(seq), "…\x1b\\") {
		t.Errorf("the body is not clipped visibly: %q", seq[len(seq)-20:])
	}
}

func TestTerminalChoosesPerClient(t *testing.T) {
	c := func(term, termType string) Client {
		return Client{TTY: "/dev/pts/9", Term: term, TermType: termType}
	}
	tests := []struct {
		name, mode string
		client     Client
		env        map[string]string
		proto      string
		nested     bool
		why        string
	}{
		{"kitty by its answer", "auto", c("xterm-256color", "kitty(0.35.2)"), nil, OSC99, false, `its terminal says it is "kitty(0.35.2)"`},
		{"WezTerm by its answer", "auto", c("xterm-256color", "WezTerm 20240203-110809-5046fc22"), nil, OSC777, false, "WezTerm"},
		{"Ghostty by its answer", "auto", c("xterm-ghostty", "ghostty 1.1.3"), nil, OSC777, false, "ghostty"},
		{"foot by its answer", "auto", c("foot", "foot(1.20.2)"), nil, OSC777, false, "foot"},
		{"iTerm2 by its answer", "auto", c("xterm-256color", "iTerm2 3.5.4"), nil, OSC9, false, "iTerm2"},
		{"an answer beats the environment", "auto", c("xterm-256color", "XTerm(390)"),
			map[string]string{"TERM_PROGRAM": "WezTerm"}, "", false, `"XTerm(390)", which shows none`},
		{"kitty by TERM over SSH", "auto", c("xterm-kitty", ""), nil, OSC99, false, "TERM xterm-kitty"},
		{"urxvt by TERM", "auto", c("rxvt-unicode-256color", ""), nil, OSC777, false, "TERM rxvt-unicode-256color"},
		{"iTerm2 by LC_TERMINAL, which SSH carries", "auto", c("xterm-256color", ""),
			map[string]string{"LC_TERMINAL": "iTerm2"}, OSC9, false, "LC_TERMINAL=iTerm2 in its environment"},
		{"WezTerm by TERM_PROGRAM", "auto", c("xterm-256color", ""),
			map[string]string{"TERM_PROGRAM": "WezTerm"}, OSC777, false, "TERM_PROGRAM=WezTerm"},
		{"Windows Terminal", "auto", c("xterm-256color", ""), map[string]string{"WT_SESSION": "x"}, OSC9, false, "WT_SESSION"},
		{"Konsole", "auto", c("xterm-256color", ""), map[string]string{"KONSOLE_VERSION": "240202"}, OSC777, false, "KONSOLE_VERSION"},
		{"unknown terminal gets nothing", "auto", c("xterm-256color", ""), map[string]string{"TERM_PROGRAM": "Apple_Terminal"},
			"", false, "TERM xterm-256color and no answer to XTVERSION"},
		{"tmux in kitty, locally", "auto", c("tmux-256color", "tmux 3.3a"),
			map[string]string{"TERM_PROGRAM": "tmux", "KITTY_WINDOW_ID": "1"}, OSC99, true, "KITTY_WINDOW_ID in its environment"},
		{"tmux in an unknown terminal", "auto", c("tmux-256color", "tmux 3.3a"), map[string]string{"TERM_PROGRAM": "tmux"},
			"", true, `"tmux 3.3a", and nothing names the terminal outside it`},
		{"tmux that did not answer, iTerm2 by LC_TERMINAL", "auto", c("tmux-256color", ""),
			map[string]string{"TERM_PROGRAM": "tmux", "LC_TERMINAL": "iTerm2"}, OSC9, true, "LC_TERMINAL=iTerm2 in its environment"},
		{"tmux with TERM screen that did not answer, kitty", "auto", c("screen-256color", ""),
			map[string]string{"KITTY_WINDOW_ID": "3"}, OSC99, true, "KITTY_WINDOW_ID in its environment"},
		{"tmux that did not answer, in an unknown terminal", "auto", c("screen", ""), nil,
			"", true, "TERM screen, and nothing names the terminal outside it"},
		{"forced for any terminal", OSC9, c("xterm-256color", "XTerm(390)"), nil, OSC9, false, "@paneherd-notify-terminal osc9"},
		{"forced through a tmux", OSC777, c("screen", "tmux 3.4"), nil, OSC777, true, "@paneherd-notify-terminal osc777"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := choose(tt.mode, tt.client, tt.env)
			if r.proto != tt.proto || r.nested != tt.nested || !strings.Contains(r.why, tt.why) {
				t.Errorf("choose = %q nested=%v (%s); want %q nested=%v saying %q", r.proto, r.nested, r.why, tt.proto, tt.nested, tt.why)
			}
		})
	}
}

func TestNewTerminalRefusesUnknownMode(t *testing.T) {
	for _, mode := range []string{"auto", "osc9", "osc777", "osc99"} {
		if _, err := NewTerminal(tmux.Server{}, mode); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
	}
	_, err := NewTerminal(tmux.Server{}, "osc1337")
	if err == nil || !strings.Contains(err.Error(), "use auto, osc9, osc777, osc99 or off") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v, want one line naming the modes", err)
	}
}
