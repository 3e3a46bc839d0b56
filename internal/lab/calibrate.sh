#!/usr/bin/env bash
# internal/lab/calibrate.sh [AGENT...] (make lab-calibrate): records what each real agent
# CLI of the agents lab (claude codex gemini opencode qwen by default) writes to its
# terminal in each situation the bench plays (idle, thinking, streaming, dialog, tool,
# error), at the bench's pane size: internal/lab/calibrate (Go) starts the CLI afresh for
# each, drives it there with the fake model's keywords and records ~9 s of it. The
# recordings replace those in cmd/paneherd-bench/agents/ (CALIBRATE_OUT to put them
# elsewhere), and docs/performance.md's table of how agents write is made again from them.
#
# CALIBRATE_SITUATIONS="idle dialog" picks situations. Needs: python3, tmux, go, the CLIs
# in AGENTS_DIR, the lab in AGENTS_LAB; the fake model on LAB_PORT (default 18080; started
# here when none listens, and the lab's env.sh points the CLIs at 18080). A few minutes per
# agent. Not part of `make test`.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)   # the repository
LAB=${AGENTS_LAB:?set AGENTS_LAB to the agents lab (the folder with fakemodel.py and env.sh)}
export AGENTS_DIR=${AGENTS_DIR:-$HOME/.cache/agents-lab}
PORT=${LAB_PORT:-18080}
OUT=${CALIBRATE_OUT:-$root/cmd/paneherd-bench/agents}

for need in "$LAB/fakemodel.py" "$LAB/env.sh" "$AGENTS_DIR/node_modules/.bin"; do
  [ -e "$need" ] || { echo "lab-calibrate: $need is missing (AGENTS_LAB, AGENTS_DIR)" >&2; exit 2; }
done
agents=("$@"); [ ${#agents[@]} -gt 0 ] || agents=(claude codex gemini opencode qwen)
situations=${CALIBRATE_SITUATIONS:-}
mkdir -p "$OUT"

# A short TMUX_TMPDIR (socket paths over ~100 bytes fail), our own tmux server and the
# agents' HOMEs (AGENTS_HOME keeps them across runs, so first-run dialogs show once).
tmp=$(mktemp -d /tmp/labcal.XXXXXX)
export TMUX_TMPDIR=$tmp
export AGENTS_HOME=${AGENTS_HOME:-$tmp/home}
unset TMUX
sock=cal-$$
fake_pid=
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$root/internal/lab/common.sh"
ensure_fake_model

echo "lab-calibrate: building the recorder"
(cd "$root" && go build -o "$tmp/calibrate" ./internal/lab/calibrate) || exit 2
# The server lives as long as the run: each situation is a session of its own.
tmux -L "$sock" -f /dev/null new-session -d -s keep 'sleep 100000' || exit 2
tmux -L "$sock" set -g focus-events on
"$tmp/calibrate" -L "$sock" -env "$LAB/env.sh" -work "$tmp/work" -out "$OUT" \
  ${situations:+-situations "${situations// /,}"} "${agents[@]}"
rc=$?
if [ "$OUT" = "$root/cmd/paneherd-bench/agents" ]; then
  echo "lab-calibrate: docs/performance.md's table of how the agents write, made again from the recordings"
  (cd "$root" && go test -count=1 ./cmd/paneherd-bench -run TestDocsShowHowAgentsWrite -update) || rc=1
else
  echo "lab-calibrate: recordings in $OUT; copy them to cmd/paneherd-bench/agents/ and run"
  echo "  go test ./cmd/paneherd-bench -run TestDocsShowHowAgentsWrite -update  to make docs/performance.md's table from them"
fi
exit $rc
