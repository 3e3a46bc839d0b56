#!/bin/sh
# Builds bin/paneherd with the local Go toolchain. Safe to run again: Go's build cache makes
# a second run quick, and nothing outside this directory is touched.
set -eu

cd "$(dirname "$0")"

fail() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}

# version_at_least HAVE WANT: both "MAJOR.MINOR".
version_at_least() {
	have_major=${1%%.*} have_minor=${1#*.}
	want_major=${2%%.*} want_minor=${2#*.}
	[ "$have_major" -gt "$want_major" ] ||
		{ [ "$have_major" -eq "$want_major" ] && [ "$have_minor" -ge "$want_minor" ]; }
}

command -v go >/dev/null 2>&1 ||
	fail "Go is not installed (need 1.25 or newer): see https://go.dev/doc/install, or 'apt-get install golang' on a recent Debian"
go_version=$(go env GOVERSION | sed -n 's/^go\([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$go_version" ] || fail "cannot read the Go version from 'go env GOVERSION'"
version_at_least "$go_version" 1.25 ||
	fail "Go $go_version is too old (need 1.25 or newer)"

command -v tmux >/dev/null 2>&1 ||
	fail "tmux is not installed (need 3.2 or newer): 'apt-get install tmux' or your system's package manager"
tmux_version=$(tmux -V | sed -n 's/^tmux[^0-9]*\([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$tmux_version" ] || fail "cannot read the tmux version from '$(tmux -V)'"
version_at_least "$tmux_version" 3.2 ||
	fail "tmux $tmux_version is too old (need 3.2 or newer)"

version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
mkdir -p bin
# A private temp name: two builds at once (tmux.conf sourced twice) must not write one file.
tmp=$(mktemp bin/.paneherd.XXXXXX)
trap 'rm -f "$tmp"' EXIT
go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$tmp" ./cmd/paneherd ||
	fail "go build failed (see above)"
chmod 755 "$tmp"
mv "$tmp" bin/paneherd
printf 'built bin/paneherd (%s) with Go %s for tmux %s\n' "$version" "$go_version" "$tmux_version"
