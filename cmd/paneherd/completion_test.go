package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// completionDrivers load a script and complete lines with it, the way each shell does when
// Tab is pressed: complete_line N WORD... prints "== N" and then a candidate a line.
// @CALLS@ is where the calls go. zsh completes only in its line editor: its
// _describe, which lists what the script hands it, is stood in for by one printing the
// array it is given (the e2e test drives the real one).
var completionDrivers = map[string]struct{ args []string }{
	"bash": {[]string{"bash", "--norc", "--noprofile", "-c", `source "$0"
complete_line() {
	printf '== %s\n' "$1"; shift
	COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
	_paneherd
	printf '%s\n' "${COMPREPLY[@]}"
}
@CALLS@`}},
	"zsh": {[]string{"zsh", "--no-rcs", "-c", `source "$0"
_describe() { print -rl -- ${(P)4} }
complete_line() {
	print -r -- "== $1"; shift
	words=("$@"); CURRENT=$#
	_paneherd
}
@CALLS@`}},
	"fish": {[]string{"fish", "--no-config", "-c", `source $argv[1]
function complete_line
	echo "== $argv[1]"
	complete -C (string join ' ' -- $argv[2..-1])
end
@CALLS@`}},
}

// completeLines has shell complete each line (its last word being completed) with the
// script `paneherd completion SHELL` prints, and returns the candidates by line.
func completeLines(t *testing.T, shell string, lines []string) map[string][]string {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Fatalf("%s is not installed (.ci/run installs it)", shell)
	}
	e, _ := packsEnv(t)
	var script bytes.Buffer
	if code, stderr := runWith(e, &script, "completion", shell); code != exitOK {
		t.Fatalf("completion %s: exit %d: %s", shell, code, stderr)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "paneherd."+shell)
	if err := os.WriteFile(path, script.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for n, line := range lines {
		words := strings.Split(line, " ")
		if shell == "bash" {
			words = bashWords(line)
		}
		for i, w := range words {
			words[i] = shellQuote(w)
		}
		calls = append(calls, "complete_line "+strconv.Itoa(n)+" "+strings.Join(words, " "))
	}
	d := completionDrivers[shell]
	args := slices.Clone(d.args)
	args[len(args)-1] = strings.Replace(args[len(args)-1], "@CALLS@", strings.Join(calls, "\n"), 1)
	cmd := exec.Command(args[0], append(args[1:], path)...)
	// No paneherd on PATH: a script that ran one would find none, and no tmux server either.
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir, "TMUX_TMPDIR=" + dir}
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // fish says there that it found no paneherd for a TARGET's names
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, stderr.String())
	}
	got := map[string][]string{}
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if n, ok := strings.CutPrefix(l, "== "); ok {
			i, _ := strconv.Atoi(n)
			line = lines[i]
			got[line] = []string{}
			continue
		}
		// fish: "candidate\twhat it does"; zsh: "candidate:what it does".
		if candidate, _, _ := strings.Cut(strings.Split(l, "\t")[0], ":"); candidate != "" {
			got[line] = append(got[line], candidate)
		}
	}
	return got
}

// bashWords splits a line into COMP_WORDS as bash does: at spaces, and around each ':' (in
// COMP_WORDBREAKS), which is a word of its own; a line ending in a space ends in an empty word.
func bashWords(line string) []string {
	var words []string
	for _, w := range strings.Split(line, " ") {
		parts := strings.Split(w, ":")
		for i, p := range parts {
			if i > 0 {
				words = append(words, ":")
			}
			if p != "" || len(parts) == 1 {
				words = append(words, p)
			}
		}
	}
	return words
}

// TestCompletionOffersEveryCommandAndFlag: each shell's script completes every command a
// person runs and, after a command, exactly the flags it takes, a TARGET with ':' in it
// (session:window.pane) too.
func TestCompletionOffersEveryCommandAndFlag(t *testing.T) {
	var named []string
	want := map[string][]string{}
	for _, c := range commands {
		if c.summary == "" {
			continue
		}
		named = append(named, c.name)
		fs, _ := c.flagSet()
		flags := []string{}
		fs.VisitAll(func(f *flag.Flag) { flags = append(flags, "--"+f.Name) })
		want["paneherd "+c.name+" --"] = flags
	}
	want["paneherd send main:0.1 --"] = want["paneherd send --"]
	lines := []string{"paneherd "}
	for line := range want {
		lines = append(lines, line)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			got := completeLines(t, shell, lines)
			commandsGot := slices.DeleteFunc(got["paneherd "], func(w string) bool { return strings.HasPrefix(w, "-") })
			if slices.Sort(commandsGot); !slices.Equal(commandsGot, slices.Sorted(slices.Values(named))) {
				t.Errorf("paneherd <Tab> offers %q, want the commands %q", commandsGot, slices.Sorted(slices.Values(named)))
			}
			for line, flags := range want {
				if slices.Sort(got[line]); !slices.Equal(got[line], flags) {
					t.Errorf("%q <Tab> offers %q, want its flags %q", line, got[line], flags)
				}
			}
		})
	}
}
