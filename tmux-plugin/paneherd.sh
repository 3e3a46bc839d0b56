#!/usr/bin/env bash
# Builds bin/paneherd when it is missing or older than its sources, then applies the plugin
# to the tmux server in $TMUX (run-shell sets it) and starts the daemon. Progress and
# failures are shown with display-message, since TPM discards output. Options and their
# defaults are declared in the binary (internal/options), not here.
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
	say "building (see $build_log)…"
	if ! "$root/install.sh" >"$build_log" 2>&1; then
		say "build failed: $(tail -n 1 "$build_log") — full log in $build_log"
		return 1
	fi
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
		fi
	) 9>"$cache/plugin.lock" || exit 1
	if ! out="$("$bin" plugin apply 2>&1)"; then
		say "${out:-plugin apply failed}"
		exit 1
	fi
	[ -z "$out" ] || say "$out"
}

main
