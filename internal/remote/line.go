package remote

import (
	"regexp"
	"strings"
)

// plainWord is a word every shell takes as it is: no quoting, no expansion (not '='
// first, which zsh expands to a command's path; not '%' or '~', which fish and the
// others may expand).
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:@+,=-]*$`)

// Quote writes arg as one literal word for sh, bash, dash, zsh and fish. Runs of
// anything but ' and \ go inside single quotes; each ' and \ goes outside them, as \'
// and \\: fish reads \' and \\ as escapes even inside single quotes, and every shell
// reads them so outside. Newlines, $, `, globs and every other byte stay inside the
// quotes, literal.
func Quote(arg string) string {
	if plainWord.MatchString(arg) {
		return arg
	}
	var b strings.Builder
	open := false
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		if c == '\'' || c == '\\' {
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteByte('\\')
			b.WriteByte(c)
			continue
		}
		if !open {
			b.WriteByte('\'')
			open = true
		}
		b.WriteByte(c)
	}
	if open {
		b.WriteByte('\'')
	}
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}

// The launcher tells paneherd's output from what the login shell printed before it
// (rc files that echo): it writes startMark to stdout and to stderr just before paneherd
// starts, and Cmd passes on only what follows the mark.
const startMark = "paneherd-remote:start"

// noPaneherd starts the launcher's message when it finds no paneherd; it exits
// noPaneherdCode, a shell's "command not found".
const (
	noPaneherd     = "paneherd-remote: no paneherd"
	noPaneherdCode = 127
)

// launcher is the sh script that finds paneherd on the host and runs it with the
// script's arguments. PATH first, then where paneherd is installed when that PATH
// (sshd's, and what the login shell's rc files added) lacks it: ~/.local/bin,
// `go install`'s ~/go/bin, and the tmux plugin's bin/ where TPM clones it (its
// classic place and the one under XDG_CONFIG_HOME).
const launcher = `for p in "$(command -v paneherd)" "$HOME/.local/bin/paneherd" "$HOME/go/bin/paneherd" ` +
	`"$HOME/.tmux/plugins/paneherd/bin/paneherd" "${XDG_CONFIG_HOME:-$HOME/.config}/tmux/plugins/paneherd/bin/paneherd"; do ` +
	`if [ -f "$p" ] && [ -x "$p" ]; then echo ` + startMark + `; echo ` + startMark + ` >&2; exec "$p" "$@"; fi; done; ` +
	`echo "` + noPaneherd + ` in PATH ($PATH), ~/.local/bin, ~/go/bin or the tmux plugin directories" >&2; exit 127`

// remoteLine is the command line ssh sends for paneherd with args: sshd hands it to the
// user's login shell, whatever that is, so the line is only words Quote wrote, and the
// script runs in sh, with the arguments as its positional parameters.
func remoteLine(args []string) string {
	words := []string{"exec", "sh", "-c", Quote(launcher), "paneherd"}
	for _, a := range args {
		words = append(words, Quote(a))
	}
	return strings.Join(words, " ")
}
