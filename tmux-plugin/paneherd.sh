#!/usr/bin/env bash
# Builds bin/paneherd when it is missing or older than its sources, then applies the plugin
# to the tmux server in $TMUX (run-shell sets it) and starts the daemon. TPM discards
# output: what the build has to say goes in the status bar (@paneherd_build, in front of
# the badges: "installing…", then "downloading…" or "building…" as install.sh says,
# "build failed, see <log>" until a build succeeds) and in a message. Options and their
# defaults are declared in the binary (internal/options), not here.
#
# `paneherd.sh pending` (run by paneherd.tmux, in the foreground, when there is no binary
# yet) puts the build's word where the badges will be, for `plugin apply` to complete.
# `paneherd.sh downloading|building` is install.sh telling the step it starts
# (PANEHERD_ON_STEP).
set -u

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/bin/paneherd"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/paneherd"
build_log="$cache/build.log"
placeholder='#{paneherd_status}'
pending_placeholder='#{@paneherd_build}#{paneherd_status}'

# tmux -u, as every tmux client paneherd starts: without a UTF-8 locale tmux prints '_'
# for each non-ASCII character, and a status-right read and set back would lose them.
tmux() { command tmux -u "$@"; }

say() {
	# display-message reads its text as a format and through strftime.
	local msg="paneherd: $*"
	msg="${msg//#/##}"
	tmux display-message "${msg//%/%%}"
}

# build_word shows the build's word in the bar; "" clears it. The status line draws the
# option's value as a format's result: '#' is doubled, so a path cannot restyle the bar.
build_word() {
	local text="${1//#/##}"
	[ -z "$text" ] || text="$2$text#[default] "
	tmux set-option -gq @paneherd_build "$text"
}

# pending puts the build's word in front of the placeholder in status-left/right, once.
pending() {
	build_word "[paneherd: installing…]" ""
	local opt value
	for opt in status-left status-right; do
		value="$(tmux show-options -gv "$opt" 2>/dev/null)"
		case "$value" in
		*"$pending_placeholder"*) continue ;;
		*"$placeholder"*) ;;
		*) continue ;;
		esac
		value="${value//"$placeholder"/"$pending_placeholder"}"
		# tmux reads a word ending in ';' as the end of a command; '\;' keeps it.
		case "$value" in *\;) value="${value%;}\\;" ;; esac
		tmux set-option -g "$opt" "$value"
		# Room for the word where tmux's default length is left, as plugin apply makes
		# room for the badges (tmux cuts a long status-right at its start).
		case "$opt=$(tmux show-options -gv "$opt-length")" in
		status-left=10 | status-right=40) tmux set-option -g "$opt-length" 200 ;;
		esac
	done
}

# sources prints what the binary is built from: Go code, packs, embedded screens, module
# files and the build script.
sources() {
	find "$root" \( -path "$root/bin" -o -path "$root/.git" \) -prune -o -type f \
		\( -name '*.go' -o -name '*.toml' -o -name '*.ansi' -o -name 'go.mod' -o -name 'go.sum' \
		-o -name 'install.sh' \) -print 2>/dev/null
}

# stale: the binary is missing, or a source is newer than it.
stale() {
	[ -x "$bin" ] || return 0
	[ -n "$(sources | while read -r f; do [ "$f" -nt "$bin" ] && { echo "$f"; break; }; done)" ]
}

build() {
	build_word "[paneherd: installing…]" ""
	say "installing (see $build_log)…"
	if ! PANEHERD_ON_STEP="$root/tmux-plugin/paneherd.sh" "$root/install.sh" >"$build_log" 2>&1; then
		local shown="$build_log"
		[ -z "${HOME:-}" ] || shown="${build_log/#"$HOME"/\~}"
		build_word "[paneherd: build failed, see $shown]" "#[fg=red]"
		say "build failed: $(tail -n 1 "$build_log") — full log in $build_log"
		return 1
	fi
	build_word "" ""
	# A source dated in the future (clock skew, an unpacked archive) would look newer than
	# any fresh build, and rebuild at every start: date the binary after the newest source.
	local newest
	newest="$(sources | xargs -r ls -t 2>/dev/null | head -n 1)"
	if [ -n "$newest" ] && [ "$newest" -nt "$bin" ]; then
		touch -r "$newest" "$bin"
	fi
}

main() {
	mkdir -p "$cache"
	(
		# One build at a time when tmux.conf is sourced twice in a row; fd 9 stays here,
		# so the daemon started below does not inherit the lock.
		flock 9 2>/dev/null
		if stale; then
			build || [ -x "$bin" ] || exit 1
		else
			# Built since (install.sh run by hand): a failure the bar still shows is over.
			build_word "" ""
		fi
	) 9>"$cache/plugin.lock" || exit 1
	if ! out="$("$bin" plugin apply 2>&1)"; then
		say "${out:-plugin apply failed}"
		exit 1
	fi
	[ -z "$out" ] || say "$out"
}

case "${1:-}" in
pending) pending ;;
downloading | building) build_word "[paneherd: $1…]" "" ;;
*) main ;;
esac
