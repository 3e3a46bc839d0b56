package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// Run runs one tmux client process with args (which may chain several tmux
// commands with lone ";" words) and returns its stdout.
//
// On failure the error carries tmux's trimmed stderr and wraps ErrNoServer
// or ErrNoPane where they apply; the stdout printed before the failure is
// still returned, because a failing command in a chain aborts only the
// commands after it.
//
// With a Via, commands that read no stdin go through it instead: no process at all;
// except those that run commands of their own (see runsOthers).
func (s Server) Run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	if _, bounded := ctx.Deadline(); s.Timeout > 0 && !bounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	if s.Via != nil && stdin == nil && len(args) > 0 && !strings.HasPrefix(args[0], "-") && !runsOthers(args) {
		if out, err := s.runVia(ctx, args); !errors.Is(err, ErrViaClosed) {
			return out, err
		}
	}
	return s.fork(ctx, stdin, args)
}

func (s Server) fork(ctx context.Context, stdin io.Reader, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, "tmux", s.Args(args...)...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), runError(ctx, args, stderr.String(), err)
	}
	return stdout.String(), nil
}

func runError(ctx context.Context, args []string, stderr string, err error) error {
	op := "tmux"
	if len(args) > 0 {
		op += " " + args[0]
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", op, ctx.Err())
	}
	msg := strings.TrimSpace(stderr)
	var exit *exec.ExitError
	if classify(msg) != nil || msg != "" && errors.As(err, &exit) {
		return commandFailed(op, msg)
	}
	if msg != "" {
		return fmt.Errorf("%s: %s: %w", op, msg, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// commandFailed is the error of a command tmux refused, as its message says.
func commandFailed(op, msg string) error {
	if sentinel := classify(msg); sentinel != nil {
		return fmt.Errorf("%s: %s: %w", op, msg, sentinel)
	}
	return fmt.Errorf("%s: %s", op, msg)
}

// classify maps tmux 3.3a's error messages to sentinels. "server exited
// unexpectedly" is what a client gets when it connects to a server that is
// still shutting down, e.g. right after kill-server.
func classify(msg string) error {
	switch {
	case strings.Contains(msg, "no server running on"),
		strings.Contains(msg, "error connecting to"),
		strings.Contains(msg, "server exited"):
		return ErrNoServer
	case strings.Contains(msg, "can't find pane"):
		return ErrNoPane
	case msg == "no current target":
		return ErrNoSessions
	}
	return nil
}

// LiteralArg protects one argument from tmux's argv parser, which treats a
// word ending in ";" as "end of command" (so `set @x 'a;'` would set "a")
// and turns a trailing `\;` into ";". A backslash before the final ";"
// makes tmux hand the argument on unchanged.
func LiteralArg(arg string) string {
	if !strings.HasSuffix(arg, ";") {
		return arg
	}
	return arg[:len(arg)-1] + `\;`
}

// Version returns the major and minor version of the tmux binary.
func (s Server) Version(ctx context.Context) (major, minor int, err error) {
	out, err := s.Run(ctx, nil, "-V")
	if err != nil {
		return 0, 0, err
	}
	return ParseVersion(out)
}

// ParseVersion reads `tmux -V` output: "tmux 3.3a", "tmux 3.4",
// "tmux next-3.5" (builds from master); or a server's #{version}, "3.3a".
func ParseVersion(out string) (major, minor int, err error) {
	v := strings.TrimSpace(out)
	v = strings.TrimPrefix(v, "tmux ")
	v = strings.TrimPrefix(v, "next-")
	majorText, rest, ok := strings.Cut(v, ".")
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	major, errMajor := strconv.Atoi(majorText)
	minor, errMinor := strconv.Atoi(rest[:end])
	if !ok || errMajor != nil || errMinor != nil {
		return 0, 0, fmt.Errorf("tmux -V: %q: %w", strings.TrimSpace(out), ErrVersion)
	}
	return major, minor, nil
}

// ShellWord quotes s as one sh word for a command tmux will format-expand before the
// shell sees it (run-shell, #() jobs): single quotes for the shell, and '#' doubled, since
// a path or name is text, not a format.
func ShellWord(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, "'", `'\''`), "#", "##") + "'"
}

// Chain joins commands into the arguments of one tmux invocation, separated by lone ";".
func Chain(cmds [][]string) []string {
	var args []string
	for i, c := range cmds {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, c...)
	}
	return args
}

// Script joins commands into one string for tmux's command parser (an if-shell branch):
// every argument quoted, commands separated by ";".
func Script(cmds [][]string) string {
	var b strings.Builder
	for i, c := range cmds {
		if i > 0 {
			b.WriteString(" ; ")
		}
		b.WriteString(c[0])
		for _, a := range c[1:] {
			b.WriteString(" " + Quote(a))
		}
	}
	return b.String()
}

// Quote quotes s as one word for tmux's command parser (a configuration file, a hook's
// command): double quotes, with '\', '"', '$' and '~' escaped so tmux neither ends the
// word nor expands variables or home directories in it.
func Quote(s string) string {
	return `"` + quoter.Replace(s) + `"`
}

// A newline would end the command line (a hook, a control-mode command): tmux reads
// the escape back as one.
var quoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, `~`, `\~`, "\n", `\n`, "\r", `\r`)

// MessageText makes s safe as display-message's text, which tmux expands as a format,
// passes through strftime, then draws: '#' is escaped for both expansion and drawing
// (Unexpand), '%' doubled, and newlines (which would end the status line) become a dash.
func MessageText(s string) string {
	return LiteralArg(messageQuoter.Replace(EscapeExpanded(s)))
}

// EscapeExpanded makes text safe as a format that tmux expands and then draws (a
// message, a menu label, a prompt): '#' doubled for drawing, then Unexpand for the
// expansion before it. Clean the text first: this escapes, it does not remove.
func EscapeExpanded(s string) string { return Unexpand(strings.ReplaceAll(s, "#", "##")) }

var messageQuoter = strings.NewReplacer("%", "%%", "\n", " — ")

// Unexpand returns what tmux's format expansion turns back into s, for a string tmux
// expands once more than its content expects (a display-menu item's command is expanded
// when the menu is built, then again by the command it runs). Expansion turns "##" into
// "#" but leaves a run of '#' before '[' (a style, or an escaped "#[") for drawing to read,
// so such a run stays as it is and every other one is doubled.
func Unexpand(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '#')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := strings.TrimLeft(s[i:], "#")
		run := s[i : len(s)-len(rest)]
		b.WriteString(run)
		if !strings.HasPrefix(rest, "[") {
			b.WriteString(run)
		}
		s = rest
	}
}
