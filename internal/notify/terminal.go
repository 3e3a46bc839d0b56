package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/statusline"
)

// The ways a terminal is asked to notify, the values of @paneherd-notify-terminal besides
// auto and off.
const (
	OSC9   = "osc9"   // ESC ] 9 ; TEXT ST: iTerm2, WezTerm, Ghostty, foot, Windows Terminal
	OSC777 = "osc777" // ESC ] 777 ; notify ; TITLE ; BODY ST: foot, WezTerm, Ghostty, Konsole, urxvt
	OSC99  = "osc99"  // kitty's protocol: a title, then a body, one id
)

// Terminal asks the terminals of the attached tmux clients to show a notification, with
// the OSC sequence each understands. The sequence travels in the client's own output, so
// it reaches the person's terminal wherever tmux runs: over SSH, on a remote machine.
type Terminal struct {
	Server tmux.Server
	// Mode is OSC9, OSC777 or OSC99 for every client, else auto: per client, from what
	// tmux and the client's environment say of its terminal.
	Mode string
}

// NewTerminal returns the terminal backend for @paneherd-notify-terminal's value (off is
// no backend, decided by the caller).
func NewTerminal(s tmux.Server, mode string) (Terminal, error) {
	switch mode {
	case "auto", OSC9, OSC777, OSC99:
		return Terminal{Server: s, Mode: mode}, nil
	}
	return Terminal{}, fmt.Errorf("terminal: @paneherd-notify-terminal %q is not a mode: use auto, osc9, osc777, osc99 or off", mode)
}

// Name is "terminal".
func (t Terminal) Name() string { return "terminal" }

// ErrNoTerminal is returned when clients are attached but none has a terminal known to
// show notifications.
var ErrNoTerminal = errors.New("no attached client's terminal is known to show notifications")

// Send writes n, cleaned by Outbound, to every client whose terminal gets a sequence, all
// at once (writeClients). It fails only when no terminal got it.
func (t Terminal) Send(ctx context.Context, n Notification) error {
	routes, err := t.routes(ctx)
	if err != nil {
		return err
	}
	n = Outbound(n)
	var writes []clientWrite
	for _, r := range routes {
		if r.proto != "" {
			writes = append(writes, clientWrite{r.client, r.sequence(n)})
		}
	}
	if len(writes) == 0 {
		return fmt.Errorf("terminal: %w: %s", ErrNoTerminal, whyNot(routes))
	}
	if written, failed := writeClients(ctx, t.Server, writes); written == 0 {
		// One line, each client's error still there for errors.Is.
		return fmt.Errorf("terminal: %w", failures(failed))
	}
	return nil
}

// Describe says what Send would do, per client, and why: for doctor and `notify test`.
func (t Terminal) Describe(ctx context.Context) (string, error) {
	routes, err := t.routes(ctx)
	if err != nil {
		return "", err
	}
	var to []string
	for _, r := range routes {
		if r.proto != "" {
			to = append(to, r.describe())
		}
	}
	if len(to) == 0 {
		return "", fmt.Errorf("terminal: %w: %s", ErrNoTerminal, whyNot(routes))
	}
	line := strings.Join(to, "; ")
	if skipped := whyNot(routes); skipped != "" {
		line += "; nothing to " + skipped
	}
	return line, nil
}

// routes lists the attached clients a person uses, with what each one's terminal gets.
func (t Terminal) routes(ctx context.Context) ([]clientRoute, error) {
	clients, err := Clients(ctx, t.Server)
	if err != nil {
		return nil, fmt.Errorf("terminal: %w", err)
	}
	var rs []clientRoute
	for _, c := range clients {
		if !c.Control {
			rs = append(rs, choose(t.Mode, c, clientEnv(c.PID)))
		}
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("terminal: %w: terminal notifications go to the terminals of attached clients", ErrNoClient)
	}
	return rs, nil
}

// whyNot names the clients that get nothing, and why, with what to do.
func whyNot(routes []clientRoute) string {
	var skipped []string
	for _, r := range routes {
		if r.proto == "" {
			skipped = append(skipped, r.client.TTY+" ("+r.why+")")
		}
	}
	if len(skipped) == 0 {
		return ""
	}
	return strings.Join(skipped, ", ") + ": set @paneherd-notify-terminal to osc9, osc777 or osc99 if that terminal shows one of them"
}

// route is what one client's terminal gets: a protocol ("" for nothing) and why.
type clientRoute struct {
	client Client
	proto  string
	// nested: the client's terminal is another tmux, which passes a sequence on to its
	// own terminal only inside its passthrough (allow-passthrough on).
	nested bool
	why    string
}

func (r clientRoute) describe() string {
	s := r.proto + " to " + r.client.TTY + " (" + r.why + ")"
	if r.nested {
		s = r.proto + " through the outer tmux to " + r.client.TTY + " (" + r.why + "; the outer tmux needs allow-passthrough on)"
	}
	return s
}

// choose picks what client c's terminal gets under mode (auto unless it names a
// protocol), from what tmux and the client's environment say of it.
func choose(mode string, c Client, env map[string]string) clientRoute {
	r := clientRoute{client: c}
	kind, said, answered := terminalOf(c)
	r.nested = kind == nestedTmux
	if mode == OSC9 || mode == OSC777 || mode == OSC99 {
		r.proto, r.why = mode, "@paneherd-notify-terminal "+mode
		return r
	}
	r.proto, r.why = kind, said
	if kind == "" && !answered || r.nested {
		// The terminal did not say, or is a tmux that hides the one outside it: the
		// environment the client started in may still name it (locally, or an LC_
		// variable SSH carried).
		if proto, from := terminalInEnv(env); proto != "" {
			r.proto, r.why = proto, from
		} else if r.nested {
			r.proto, r.why = "", said+", and nothing names the terminal outside it"
		}
	}
	return r
}

// nestedTmux is what terminalOf says of a client whose terminal is tmux itself.
const nestedTmux = "tmux"

// terminalOf is what a client's terminal gets by its answer to XTVERSION, else by its
// TERM, and the words that say so; "" when neither tells. answered: the terminal named
// itself, so nothing else is asked.
func terminalOf(c Client) (kind, said string, answered bool) {
	if c.TermType != "" {
		said = "its terminal says it is " + strconv.Quote(c.TermType)
		name := strings.ToLower(c.TermType)
		for _, k := range versionAnswers {
			if strings.HasPrefix(name, k.prefix) {
				return k.proto, said, true
			}
		}
		return "", said + ", which shows none of osc9, osc777, osc99", true
	}
	said = "TERM " + c.Term
	for _, k := range termNames {
		if strings.HasPrefix(c.Term, k.prefix) {
			return k.proto, said, false
		}
	}
	return "", said + " and no answer to XTVERSION: an unknown terminal", false
}

type knownTerminal struct{ prefix, proto string }

// versionAnswers are terminals by the start of their XTVERSION answer, lower-cased. Of
// those that show several sequences, osc777 is chosen: it has a title and a body.
var versionAnswers = []knownTerminal{
	{"kitty(", OSC99},
	{"wezterm ", OSC777},
	{"ghostty ", OSC777},
	{"foot(", OSC777},
	{"iterm2 ", OSC9},
	{"tmux ", nestedTmux},
}

// termNames are terminals by the start of the TERM they set. tmux sets tmux* or
// screen* in its panes: a client with such a TERM runs inside another tmux, whether or
// not that one answered XTVERSION (tmux before 3.2 does not); a sequence outside its
// passthrough would end in that tmux, never reaching the terminal.
var termNames = []knownTerminal{
	{"xterm-kitty", OSC99},
	{"xterm-ghostty", OSC777},
	{"foot", OSC777},
	{"wezterm", OSC777},
	{"rxvt-unicode", OSC777},
	{"tmux", nestedTmux},
	{"screen", nestedTmux},
}

// terminalInEnv names the terminal from the variables terminals set, in a client's
// environment. iTerm2 sets LC_TERMINAL for SSH to carry: the ssh and sshd configurations
// of macOS and Debian pass LC_* on.
func terminalInEnv(env map[string]string) (string, string) {
	byValue := []struct{ name, value, proto string }{
		{"TERM_PROGRAM", "iTerm.app", OSC9},
		{"TERM_PROGRAM", "WezTerm", OSC777},
		{"TERM_PROGRAM", "ghostty", OSC777},
		{"LC_TERMINAL", "iTerm2", OSC9},
	}
	for _, v := range byValue {
		if env[v.name] == v.value {
			return v.proto, v.name + "=" + v.value + " in its environment"
		}
	}
	bySet := []struct{ name, proto string }{
		{"KITTY_WINDOW_ID", OSC99},
		{"WT_SESSION", OSC9}, // Windows Terminal
		{"KONSOLE_VERSION", OSC777},
	}
	for _, v := range bySet {
		if env[v.name] != "" {
			return v.proto, v.name + " in its environment"
		}
	}
	return "", ""
}

// clientEnv reads the environment a client process started with, where the person's
// terminal set its variables; nil where it cannot be read (no /proc: macOS).
func clientEnv(pid int) map[string]string {
	if pid <= 0 {
		return nil
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// Limits on what one sequence carries: a notification shows a line or two, and the whole
// sequence stays one small write().
const (
	oscTitleMax = 120
	oscBodyMax  = 400
)

// sequence is n (already through Outbound) as r's protocol writes it.
func (r clientRoute) sequence(n Notification) []byte {
	title := statusline.Clip(n.Title, oscTitleMax)
	body := statusline.Clip(strings.Join(nonEmpty(strings.Split(n.Body, "\n")), " · "), oscBodyMax)
	var s string
	switch r.proto {
	case OSC9:
		text := title
		if body != "" {
			text += ": " + body
		}
		s = "\x1b]9;" + oscField(text) + st
	case OSC777:
		s = "\x1b]777;notify;" + oscField(title) + ";" + oscField(body) + st
	case OSC99:
		s = kittyNotification(kittyID(n.At), title, body, n.Critical)
	}
	if r.nested {
		s = passthrough(s)
	}
	return []byte(s)
}

// kittyNotification is kitty's protocol: the title, then the body under the same id (d=0:
// more follows). kitty ends the metadata at the first ';': the text may hold more.
func kittyNotification(id, title, body string, critical bool) string {
	meta := "i=" + id
	if critical {
		meta += ":u=2"
	}
	if body == "" {
		return "\x1b]99;" + meta + ";" + title + "\x1b\\"
	}
	return "\x1b]99;" + meta + ":d=0;" + title + "\x1b\\" + "\x1b]99;i=" + id + ":p=body;" + body + "\x1b\\"
}

// oscField keeps a text to one field of a ';'-separated sequence: OSC 777 reads a ';' in
// a title as the start of the body, and ConEmu (whose OSC 9 Windows Terminal follows)
// reads "9;N;…" as a command, not a text.
func oscField(s string) string { return strings.ReplaceAll(s, ";", ",") }

// st is the String Terminator, ESC \, which ends an OSC or DCS sequence.
const st = "\x1b\\"

// passthroughStart starts tmux's passthrough.
const passthroughStart = "\x1bPtmux;"

// passthrough wraps s for a tmux that is the client's terminal: tmux hands the inside of
// ESC P tmux; … ST, its ESCs doubled, to its own terminal as it is.
func passthrough(s string) string {
	return passthroughStart + strings.ReplaceAll(s, "\x1b", "\x1b\x1b") + st
}

// kittyID names one notification for kitty (letters, digits, '-'), unique across
// daemons: kitty updates a shown notification with the same id.
func kittyID(at time.Time) string {
	if at.IsZero() {
		at = time.Now()
	}
	return "paneherd-" + strconv.FormatInt(at.UnixNano(), 36)
}

func nonEmpty(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
