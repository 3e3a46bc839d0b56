package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/paneherd/paneherd/internal/state"
)

var cmdCompletion = command{
	name:    "completion",
	summary: "print a shell completion script: bash, zsh or fish",
	usage:   "completion bash|zsh|fish",
	about: `Prints a shell completion script: commands and each command's flags (with what each
does, in zsh and fish), pane names for TARGET arguments (from paneherd status --names of
the server -L/-S on the line names), managed workers' names for workers continue and
retire (workers --names), the states for --until, the dialog's choices for --choice, pack
names for --pack and packs show (packs list --names), subcommands, and files where a
command takes one. Load it:

  bash  source <(paneherd completion bash)          # in ~/.bashrc
  zsh   source <(paneherd completion zsh)           # in ~/.zshrc, after compinit
  fish  paneherd completion fish > ~/.config/fish/completions/paneherd.fish`,
	link:  "[below](#shell-completion)",
	flags: noFlags(runCompletion),
}

// completionShells are the scripts, each with %[1]s the command names (one a line, as
// "name\tsummary" for fish and zsh, "name" for bash).
var completionShells = map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}

// targetCommands take a pane or worker name as their first argument.
const targetCommands = "send wait approve deny history switch record"

// fileCommands take a file or a directory (and packs check one).
const fileCommands = "classify create"

func runCompletion(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 || completionShells[args[0]] == "" {
		return usagef("completion takes one shell: bash, zsh or fish")
	}
	shell := args[0]
	script := strings.NewReplacer("@COMMANDS@", completionCommands(shell), "@FLAGS@", completionFlags(shell),
		"@TARGETS@", targetCommands, "@FILES@", fileCommands,
		"@STATES@", completionStates(), "@CHOICES@", completionChoices()).Replace(completionShells[shell])
	_, err := fmt.Fprint(e.stdout, script)
	return err
}

// completionCommands lists the commands a person runs, by name: names alone for bash, with
// their summary for zsh ('name:summary'), a complete line each for fish.
func completionCommands(shell string) string {
	var lines []string
	for _, c := range slices.SortedFunc(slices.Values(commands), byName) {
		if c.summary == "" {
			continue // run by paneherd itself
		}
		switch shell {
		case "bash":
			lines = append(lines, c.name)
		case "zsh":
			lines = append(lines, shellQuote(c.name+":"+c.summary))
		case "fish":
			lines = append(lines, "complete -c paneherd -n 'not __paneherd_command' -a "+c.name+" -d "+fishQuote(c.summary))
		}
	}
	if shell == "fish" {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines, " ")
}

// completionFlags is the body of the script's flags function: a branch per command with
// flags, which prints them (bash), sets flags to them with what each does (zsh), or
// prints them with what each does after a tab (fish).
func completionFlags(shell string) string {
	var arms []string
	for _, c := range slices.SortedFunc(slices.Values(commands), byName) {
		fs, _ := c.flagSet()
		var names, described []string
		fs.VisitAll(func(f *flag.Flag) {
			names = append(names, "--"+f.Name)
			described = append(described, "--"+f.Name, flagSummary(f))
		})
		if c.summary == "" || len(names) == 0 {
			continue
		}
		switch shell {
		case "bash":
			arms = append(arms, "\t"+c.name+") printf '%s\\n' "+strings.Join(names, " ")+" ;;")
		case "zsh":
			var items []string
			for i := 0; i < len(described); i += 2 {
				items = append(items, shellQuote(described[i]+":"+described[i+1]))
			}
			arms = append(arms, "\t"+c.name+") flags=("+strings.Join(items, " ")+") ;;")
		case "fish":
			for i := range described {
				described[i] = fishQuote(described[i])
			}
			arms = append(arms, "\t\tcase "+c.name+"\n\t\t\tprintf '%s\\t%s\\n' "+strings.Join(described, " "))
		}
	}
	return strings.Join(arms, "\n")
}

// flagSummary is what a completion says a flag does: its help's first clause (up to a
// line's end, "; " or ". "), asides in parentheses left out.
func flagSummary(f *flag.Flag) string {
	_, help := flag.UnquoteUsage(f)
	var b strings.Builder
	depth := 0
	for _, r := range help {
		switch {
		case r == '(':
			if depth == 0 {
				kept := strings.TrimRight(b.String(), " ")
				b.Reset()
				b.WriteString(kept)
			}
			depth++
		case r == ')':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	clause := b.String()
	for _, end := range []string{"\n", "; ", ". "} {
		clause, _, _ = strings.Cut(clause, end)
	}
	return strings.Join(strings.Fields(clause), " ")
}

// completionStates are what wait --until takes.
func completionStates() string {
	names := make([]string, len(state.All))
	for i, st := range state.All {
		names[i] = string(st)
	}
	return strings.Join(names, " ")
}

// completionChoices are what approve --choice takes.
func completionChoices() string {
	names := slices.Sorted(maps.Keys(choices))
	return strings.Join(names, " ")
}

const bashCompletion = `# paneherd completion for bash: source <(paneherd completion bash)
# Candidates are added one by one, never through compgen -W or an unquoted $(…): those
# expand $(…) and globs, and a pane's name is text a program in the pane can set.
_paneherd_add() {
	local cur=$1 w
	while IFS= read -r w; do
		[[ -n $w && $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
}
# _paneherd_names adds names: each one word on the line, however it is spelled, quoted as
# bash would.
_paneherd_names() {
	local cur=$1 n
	while IFS= read -r n; do
		[[ -n $n && $n == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$n")")
	done
}
# _paneherd_flags CMD prints the command's flags, one a line.
_paneherd_flags() {
	case $1 in
@FLAGS@
	esac
}
_paneherd() {
	local cur=${COMP_WORDS[COMP_CWORD]} i=1 cmd="" global=()
	COMPREPLY=()
	while [ "$i" -lt "$COMP_CWORD" ]; do
		case ${COMP_WORDS[i]} in
		-L | -S) global+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}"); i=$((i + 2)) ;;
		-*) i=$((i + 1)) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		_paneherd_add "$cur" < <(printf '%s\n' @COMMANDS@ -L -S --version)
		return
	fi
	# A flag's value: the words it takes.
	case ${COMP_WORDS[COMP_CWORD - 1]} in
	--until) _paneherd_add "$cur" < <(printf '%s\n' @STATES@); return ;;
	--choice) _paneherd_add "$cur" < <(printf '%s\n' @CHOICES@); return ;;
	--pack) _paneherd_names "$cur" < <(command paneherd packs list --names 2>/dev/null); return ;;
	esac
	case $cur in
	-*)
		_paneherd_add "$cur" < <(_paneherd_flags "$cmd")
		return
		;;
	esac
	case " @TARGETS@ " in
	*" $cmd "*)
		if [ "$i" -eq $((COMP_CWORD - 1)) ]; then
			_paneherd_names "$cur" < <(command paneherd "${global[@]}" status --names 2>/dev/null)
			return
		fi
		;;
	esac
	# The words after the command, up to the one being completed.
	local args="${COMP_WORDS[*]:i+1:COMP_CWORD-i-1}"
	case $cmd:$args in
	completion:) _paneherd_add "$cur" < <(printf '%s\n' bash zsh fish) ;;
	hooks:*) _paneherd_add "$cur" < <(printf '%s\n' install uninstall status claude codex gemini) ;;
	packs:) _paneherd_add "$cur" < <(printf '%s\n' list show check) ;;
	"packs:show" | "packs:show --builtin") _paneherd_names "$cur" < <(command paneherd packs list --names 2>/dev/null) ;;
	workers:) _paneherd_add "$cur" < <(printf '%s\n' continue) ;;
	"workers:continue" | retire:) _paneherd_names "$cur" < <(command paneherd "${global[@]}" workers --names 2>/dev/null) ;;
	esac
}
complete -o default -o bashdefault -F _paneherd paneherd
`

const zshCompletion = `#compdef paneherd
# paneherd completion for zsh: source <(paneherd completion zsh), after compinit
# _paneherd_flags CMD sets flags to the command's flags, each 'flag:what it does'.
_paneherd_flags() {
	case $1 in
@FLAGS@
	*) flags=() ;;
	esac
}
_paneherd() {
	local -a commands global flags names
	commands=(@COMMANDS@)
	local i=2 cmd=""
	while (( i < CURRENT )); do
		case ${words[i]} in
		-L|-S) global+=(${words[i]} ${words[i+1]}); (( i += 2 )) ;;
		-*) (( i++ )) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		_describe -t commands 'paneherd command' commands
		return
	fi
	# A flag's value: the words it takes.
	case ${words[CURRENT-1]} in
	--until) compadd @STATES@; return ;;
	--choice) compadd @CHOICES@; return ;;
	--pack) names=(${(f)"$(command paneherd packs list --names 2>/dev/null)"}); compadd -a names; return ;;
	esac
	if [[ ${words[CURRENT]} == -* ]]; then
		_paneherd_flags $cmd
		_describe -t flags 'flag' flags
		return
	fi
	if [[ " @TARGETS@ " == *" $cmd "* ]] && (( CURRENT == i + 1 )); then
		names=(${(f)"$(command paneherd $global status --names 2>/dev/null)"})
		compadd -a names
		return
	fi
	# The words after the command, up to the one being completed.
	case $cmd:${words[i+1,CURRENT-1]} in
	completion:) compadd bash zsh fish ;;
	hooks:*) compadd install uninstall status claude codex gemini ;;
	packs:) compadd list show check ;;
	"packs:show" | "packs:show --builtin")
		names=(${(f)"$(command paneherd packs list --names 2>/dev/null)"})
		compadd -a names
		;;
	packs:check) _files ;;
	workers:) compadd continue ;;
	"workers:continue" | retire:)
		names=(${(f)"$(command paneherd $global workers --names 2>/dev/null)"})
		compadd -a names
		;;
	packs:* | workers:* | retire:*) ;;
	*) _files ;;
	esac
}
if (( $+functions[compdef] )); then
	compdef _paneherd paneherd
fi
`

const fishCompletion = `# paneherd completion for fish: paneherd completion fish > ~/.config/fish/completions/paneherd.fish
# __paneherd_line prints the command and the words after it, one a line: the global
# flags before the command are skipped.
function __paneherd_line
	set -l words (commandline -opc)
	set -e words[1]
	while set -q words[1]
		switch $words[1]
			case -L -S
				set -e words[1..2]
			case '-*'
				set -e words[1]
			case '*'
				printf '%s\n' $words
				return 0
		end
	end
	return 1
end

function __paneherd_command
	set -l line (__paneherd_line); or return 1
	echo $line[1]
end

# __paneherd_args prints the words after the command, one a line.
function __paneherd_args
	set -l line (__paneherd_line); or return 1
	printf '%s\n' $line[2..-1]
end

# __paneherd_at CMD WORD...: the line is CMD and those words, the next one being completed.
function __paneherd_at
	test "$argv[1]" = "$(__paneherd_command)"; or return 1
	test "$(__paneherd_args | string join ' ')" = "$argv[2..-1]"
end

# __paneherd_after FLAG...: the word being completed is the value of one of the flags.
function __paneherd_after
	set -l words (commandline -opc)
	contains -- $words[-1] $argv
end

function __paneherd_global
	set -l words (commandline -opc)
	for i in (seq (count $words))
		if contains -- $words[$i] -L -S
			echo $words[$i]
			echo $words[(math $i + 1)]
		end
	end
end

# __paneherd_flags CMD prints the command's flags, each with what it does after a tab.
function __paneherd_flags
	switch $argv[1]
@FLAGS@
	end
end

function __paneherd_wants_target
	set -l cmd (__paneherd_command); or return 1
	contains -- $cmd @TARGETS@; or return 1
	set -l words (commandline -opc)
	test "$words[-1]" = "$cmd"
end

complete -c paneherd -f
@COMMANDS@
complete -c paneherd -n 'not __paneherd_command' -s L -r -d 'tmux socket name'
complete -c paneherd -n 'not __paneherd_command' -s S -r -F -d 'tmux socket path'
complete -c paneherd -n 'not __paneherd_command' -l version -d 'print the version'
complete -c paneherd -n '__paneherd_command; and string match -q -- "-*" (commandline -ct)' -a '(__paneherd_flags (__paneherd_command))'
complete -c paneherd -n '__paneherd_wants_target' -a '(command paneherd (__paneherd_global) status --names 2>/dev/null)'
complete -c paneherd -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'
complete -c paneherd -n '__fish_seen_subcommand_from hooks' -a 'install uninstall status claude codex gemini'
complete -c paneherd -n '__paneherd_after --until' -a '@STATES@'
complete -c paneherd -n '__paneherd_after --choice' -a '@CHOICES@'
complete -c paneherd -n '__paneherd_after --pack; or __paneherd_at packs show; or __paneherd_at packs show --builtin' -a '(command paneherd packs list --names 2>/dev/null)'
complete -c paneherd -n '__paneherd_at packs' -a 'list show check'
complete -c paneherd -n '__paneherd_at workers' -a 'continue'
complete -c paneherd -n '__paneherd_at workers continue; or __paneherd_at retire' -a '(command paneherd (__paneherd_global) workers --names 2>/dev/null)'
complete -c paneherd -n '__fish_seen_subcommand_from @FILES@; and not __paneherd_after --pack; or __paneherd_at packs check' -F
`

// shellQuote quotes s for bash and zsh: in single quotes nothing is special but the quote.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote quotes s for fish: in single quotes only \\ and \' are special.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
