#!/bin/sh
# Installs bin/paneherd. When this checkout is a release (a tag at HEAD, or PANEHERD_VERSION),
# it downloads that release's binary for this machine and checks it against the release's
# checksums.txt, unless bin/paneherd already is that release; otherwise, or when that fails,
# it builds with the local Go toolchain. Safe to run again: Go's build cache makes a second
# build quick, and nothing outside this directory is touched.
#
#   PANEHERD_VERSION      the release to download, e.g. 0.4.0 (default: the tag at HEAD)
#   PANEHERD_RELEASE_URL  where releases are, as <url>/v<version>/<archive>
#                         (default: https://github.com/paneherd/paneherd/releases/download)
#   PANEHERD_ON_STEP      a program run with the word of each step as it starts,
#                         downloading or building (the plugin shows it in the status bar)
set -eu

cd "$(dirname "$0")"

release_url=${PANEHERD_RELEASE_URL:-https://github.com/paneherd/paneherd/releases/download}
go_advice="get it from https://go.dev/dl/ (untar it into /usr/local, add /usr/local/go/bin to PATH); Debian 12's 'apt-get install golang' gives Go 1.19, too old"

say() { printf 'install.sh: %s\n' "$*"; }
warn() { printf 'install.sh: %s\n' "$*" >&2; }
fail() {
	warn "$@"
	exit 1
}

# tell hands PANEHERD_ON_STEP the word of the step that starts; whatever it does, the
# install goes on.
tell() {
	if [ -n "${PANEHERD_ON_STEP:-}" ]; then "$PANEHERD_ON_STEP" "$1" </dev/null >/dev/null 2>&1 || :; fi
}

# step says what starts; step_done ends its line with what came of it.
step() { printf 'install.sh: %s … ' "$*"; }
step_done() { printf '%s\n' "$*"; }

# now prints the time in tenths of a second (whole seconds where date has no %N: macOS).
now() {
	t=$(date +%s.%N)
	case $t in
	*[!0-9.]* | *.) echo $((${t%%.*} * 10)) ;;
	*)
		n=${t#*.}
		echo $((${t%%.*} * 10 + ${n%"${n#?}"}))
		;;
	esac
}

# took START prints the time since START (from now), as "1.2 s".
took() {
	d=$(($(now) - $1))
	printf '%d.%d s' $((d / 10)) $((d % 10))
}

# version_at_least HAVE WANT: both "MAJOR.MINOR".
version_at_least() {
	have_major=${1%%.*} have_minor=${1#*.}
	want_major=${2%%.*} want_minor=${2#*.}
	[ "$have_major" -gt "$want_major" ] ||
		{ [ "$have_major" -eq "$want_major" ] && [ "$have_minor" -ge "$want_minor" ]; }
}

dl="" tmp=""
cleanup() {
	if [ -n "$dl" ]; then rm -rf "$dl"; fi
	if [ -n "$tmp" ]; then rm -f "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' HUP INT TERM

check_tmux() {
	command -v tmux >/dev/null 2>&1 ||
		fail "tmux is not installed (need 3.2 or newer): 'apt-get install tmux' or your system's package manager"
	tmux_version=$(tmux -V | sed -n 's/^tmux[^0-9]*\([0-9]*\.[0-9]*\).*/\1/p')
	[ -n "$tmux_version" ] || fail "cannot read the tmux version from '$(tmux -V)'"
	version_at_least "$tmux_version" 3.2 ||
		fail "tmux $tmux_version is too old (need 3.2 or newer)"
}

# find_release sets version to the release this checkout is (without its v), or no_release
# to why there is none.
find_release() {
	version=${PANEHERD_VERSION:-} no_release=""
	if [ -z "$version" ]; then
		# A checkout of its own only: a copy inside another repository is not at its tags.
		if [ ! -e .git ] || ! command -v git >/dev/null 2>&1; then
			no_release="this is not a git checkout at a release tag"
			return
		fi
		if ! version=$(git describe --tags --exact-match 2>/dev/null); then
			version="" no_release="this checkout is not at a release tag"
			return
		fi
		# Local changes must be built, not replaced by the release they started from.
		if ! git diff --quiet HEAD -- 2>/dev/null; then
			no_release="this checkout is $version with local changes" version=""
			return
		fi
	fi
	version=${version#v}
	case $(uname -s) in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) os="" ;;
	esac
	case $(uname -m) in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) arch="" ;;
	esac
	if [ -z "$os" ] || [ -z "$arch" ]; then
		no_release="releases are built for linux and darwin on amd64 and arm64, not $(uname -s) $(uname -m)"
		version=""
	fi
}

# fetch URL FILE downloads with curl, else wget: a short connect timeout and an overall
# limit, so a machine without internet goes on to the build in seconds. On failure, why
# says why.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		err=$(curl -fsSL --connect-timeout 10 --max-time 180 -o "$2" "$1" 2>&1) && return 0
	elif command -v wget >/dev/null 2>&1; then
		# wget has no overall limit: --timeout bounds the connection and each stall.
		err=$(wget -nv --tries=1 --timeout=10 -O "$2" "$1" 2>&1) && return 0
	else
		why="neither curl nor wget is installed"
		return 1
	fi
	why="$1: $(printf '%s\n' "$err" | tail -n 1)"
	return 1
}

# sha256 FILE prints the file's SHA-256 in hex.
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sum=$(sha256sum "$1") || return 1
	elif command -v shasum >/dev/null 2>&1; then
		sum=$(shasum -a 256 "$1") || return 1
	else
		return 1
	fi
	printf '%s\n' "${sum%% *}"
}

# installed_already: bin/paneherd is the release, as it says itself (a download, or a build
# at its tag).
installed_already() {
	[ -x bin/paneherd ] && [ "$(bin/paneherd --version 2>/dev/null)" = "paneherd $version" ]
}

# install_release downloads the release's archive for this machine, verifies it against
# checksums.txt and installs its binary; on failure, why says why and nothing is installed.
# The archive name is GoReleaser's (.goreleaser.yaml, archives.name_template).
install_release() {
	archive="paneherd_${version}_${os}_${arch}.tar.gz"
	base="$release_url/v$version"
	dl=$(mktemp -d bin/.download.XXXXXX) || {
		why="cannot make a temporary directory in bin/"
		return 1
	}
	start=$(now)
	tell downloading
	step "downloading paneherd $version for $os/$arch from $base"
	if ! fetch "$base/checksums.txt" "$dl/checksums.txt" || ! fetch "$base/$archive" "$dl/$archive"; then
		step_done "failed after $(took "$start")"
		return 1
	fi
	step_done "$(took "$start")"

	step "verifying checksum"
	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$dl/checksums.txt")
	if [ -z "$want" ]; then
		step_done "failed"
		why="checksums.txt has no line for $archive"
		return 1
	fi
	if ! have=$(sha256 "$dl/$archive"); then
		step_done "failed"
		why="neither sha256sum nor shasum is installed, so the download cannot be verified"
		return 1
	fi
	if [ "$have" != "$want" ]; then
		step_done "DOES NOT MATCH"
		warn "REFUSED $archive: its checksum does not match checksums.txt (expected $want, got $have); it is not installed"
		why="the downloaded archive's checksum does not match"
		return 1
	fi
	step_done "ok"

	# -m: the binary is dated now, not at the release's build: the plugin compares dates.
	if ! err=$(tar -xzmf "$dl/$archive" -C "$dl" paneherd 2>&1); then
		why="cannot extract paneherd from $archive: $err"
		return 1
	fi
	chmod 755 "$dl/paneherd"
	if ! got=$("$dl/paneherd" --version 2>&1); then
		why="the downloaded binary does not run here: $got"
		return 1
	fi
	# Same file system, so the rename is atomic: a running plugin never sees half a binary.
	mv "$dl/paneherd" bin/paneherd
	say "installed bin/paneherd ($got): downloaded the release for $os/$arch, checksum verified, no build"
}

# check_go sets go_version (MAJOR.MINOR), go_full and go_note when the local Go can build
# paneherd, else go_why.
check_go() {
	go_note="" go_why=""
	if ! command -v go >/dev/null 2>&1; then
		go_why="Go is not installed"
		return 1
	fi
	# Outside the module and with GOTOOLCHAIN=local, so Go reports itself and fetches nothing.
	go_full=$(cd / && GOTOOLCHAIN=local go env GOVERSION 2>/dev/null) || go_full=""
	go_version=$(printf '%s\n' "$go_full" | sed -n 's/^go\([0-9]*\.[0-9]*\).*/\1/p')
	if [ -z "$go_version" ]; then
		go_why="cannot read the Go version from 'go env GOVERSION'"
		return 1
	fi
	go_full=${go_full#go}
	if ! version_at_least "$go_version" 1.21; then
		go_why="Go $go_full is too old: the build needs Go 1.25, which any Go 1.21 or newer fetches by itself"
		return 1
	fi
	if ! version_at_least "$go_version" 1.25; then
		if [ "$(cd / && go env GOTOOLCHAIN)" = local ]; then
			go_why="Go $go_full cannot fetch the Go 1.25 that go.mod needs while GOTOOLCHAIN=local: run with GOTOOLCHAIN=auto"
			return 1
		fi
		go_note="Go $go_full first fetches the Go 1.25 that go.mod needs, through the module proxy (GOTOOLCHAIN=auto)"
	fi
}

# build builds bin/paneherd with the local Go, stamped with the checkout's git description.
build() {
	src_version=""
	if [ -e .git ] && command -v git >/dev/null 2>&1; then
		src_version=$(git describe --tags --always --dirty 2>/dev/null) || src_version=""
	fi
	src_version=${src_version#v}
	# A private temp name: two builds at once (tmux.conf sourced twice) must not write one file.
	tmp=$(mktemp bin/.paneherd.XXXXXX)
	start=$(now)
	tell building
	if [ -n "$go_note" ]; then say "$go_note"; fi
	# go list loads what the build needs, fetching missing modules with a line each, and
	# compiles nothing: the download shows as a step of its own before the quiet compile.
	say "fetching the Go modules paneherd needs (a line for each one not in Go's cache) …"
	go list -deps ./cmd/paneherd >/dev/null ||
		fail "Go could not load what paneherd is built from (see above); modules come through the module proxy, $(go env GOPROXY)"
	say "modules ready ($(took "$start")); building with Go $go_full …"
	start=$(now)
	go build -trimpath -ldflags "-s -w${src_version:+ -X main.version=$src_version}" -o "$tmp" ./cmd/paneherd ||
		fail "go build failed (see above)"
	chmod 755 "$tmp"
	mv "$tmp" bin/paneherd
	tmp=""
	say "built bin/paneherd (${src_version:-dev}) with Go $go_full for tmux $tmux_version in $(took "$start")"
}

check_tmux
mkdir -p bin
find_release
if [ -n "$version" ]; then
	if installed_already; then
		say "bin/paneherd is already paneherd $version, nothing to download"
		exit 0
	fi
	if install_release; then
		exit 0
	fi
	no_release="the release download did not work: $why"
fi
if ! check_go; then
	warn "no release binary: $no_release"
	warn "no Go to build with: $go_why"
	fail "cannot install paneherd, no release and no Go: either run this from a release tag (git checkout v<version>, or PANEHERD_VERSION=<version>) whose release has a binary for this machine, or install Go 1.21 or newer and run it again: $go_advice"
fi
say "building instead of downloading: $no_release"
build
