#!/usr/bin/env bash
# Builds bin/paneherd when it is missing or older than its sources, then applies the plugin
# to the tmux server in $TMUX (run-shell sets it). Progress and failures are shown with
# display-message, since TPM discards output. Options and their defaults are declared in the
# binary (internal/options), not here.
set -u

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/bin/paneherd"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/paneherd"
build_log="$cache/build.log"

say() {
	# display-message reads its text as a format and through strftime.
	local msg="paneherd: $*"
	msg="${msg//#/##}"
	tmux display-message "${msg//%/%%}"
}

# stale: the binary is missing, or a Go source, pack or go.mod is newer than it.
stale() {
	[ -x "$bin" ] || return 0
	[ -n "$(find "$root/cmd" "$root/internal" "$root/packs" "$root/store" "$root/statusline" \
		"$root/hooks" "$root/go.mod" "$root/go.sum" \
		\( -name '*.go' -o -name '*.toml' -o -name 'go.mod' -o -name 'go.sum' \) \
		-newer "$bin" -print -quit 2>/dev/null)" ]
}

build() {
	mkdir -p "$cache"
	say "building (see $build_log)…"
	if ! "$root/install.sh" >"$build_log" 2>&1; then
		say "build failed: $(tail -n 1 "$build_log") — full log in $build_log"
		return 1
	fi
}

main() {
	mkdir -p "$cache"
	# One build at a time when tmux.conf is sourced twice in a row.
	exec 9>"$cache/plugin.lock"
	flock 9
	if stale; then
		build || exit 1
	fi
	flock -u 9
	if ! out="$("$bin" plugin apply 2>&1)"; then
		say "${out:-plugin apply failed}"
		exit 1
	fi
}

main
