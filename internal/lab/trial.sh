#!/usr/bin/env bash
# internal/lab/trial.sh [AGENT...] (make lab-trial): the live trial. Each real agent CLI of
# the agents lab (claude codex gemini opencode qwen by default) runs one scripted session
# (answers, streaming and thinking interrupted, a command approved, a write denied, errors,
# exit; a few minutes each) in a private tmux server a private paneherd daemon watches,
# with its default settings. internal/lab/trial (Go) drives the keys, records the pane
# every 100 ms and the daemon's published state every 20 ms, labels the true state from the
# script and the screens, and prints per agent: the share of samples shown right, the
# latency to show each change, and READY shown while busy. The report, the recordings and
# the daemon's log stay in the output folder (TRIAL_OUT, default a new /tmp/lab-trial.XXXXXX).
#
# TRIAL_HOOKS=1 installs paneherd's agent hooks (claude, codex, gemini) into the agents'
# throwaway HOMEs first; TRIAL_HOOKS=both runs everything twice, without and with.
# Needs: bin/paneherd (make build), python3, tmux, the CLIs in AGENTS_DIR, the lab in
# AGENTS_LAB; the fake model on LAB_PORT (default 18080; started here when none listens,
# and the lab's env.sh points the CLIs at 18080). Not part of `make test`.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)   # the repository
LAB=${AGENTS_LAB:?set AGENTS_LAB to the agents lab (the folder with fakemodel.py and env.sh)}
export AGENTS_DIR=${AGENTS_DIR:-$HOME/.cache/agents-lab}
PORT=${LAB_PORT:-18080}
PANEHERD=${PANEHERD:-$root/bin/paneherd}
HOOKS=${TRIAL_HOOKS:-0}

for need in "$LAB/fakemodel.py" "$LAB/env.sh" "$AGENTS_DIR/node_modules/.bin" "$PANEHERD"; do
  [ -e "$need" ] || { echo "lab-trial: $need is missing (AGENTS_LAB, AGENTS_DIR, PANEHERD; make build)" >&2; exit 2; }
done
agents=("$@"); [ ${#agents[@]} -gt 0 ] || agents=(claude codex gemini opencode qwen)
out=${TRIAL_OUT:-$(mktemp -d /tmp/lab-trial.XXXXXX)}
mkdir -p "$out"

# A short TMUX_TMPDIR (socket paths over ~100 bytes fail), our own tmux server, daemon
# state and agents' HOMEs.
tmp=$(mktemp -d /tmp/labtr.XXXXXX)
export TMUX_TMPDIR=$tmp
unset TMUX
sock=trial-$$
fake_pid=
# The daemon's dirs are set for paneherd only: in the tmux server's environment they would
# reach the agents (opencode reads its config from XDG_CONFIG_HOME).
ph() { XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config "$PANEHERD" -L "$sock" "$@"; }
cleanup() {
  ph stop >/dev/null 2>&1
  tmux -L "$sock" kill-server 2>/dev/null
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$root/internal/lab/common.sh"
ensure_fake_model

echo "lab-trial: building the trial driver"
(cd "$root" && go build -o "$tmp/trial" ./internal/lab/trial) || exit 2

# install_hooks HOME_ROOT: each hooked agent's HOME prepared as the lab's env.sh would
# (env.sh copies a config only when missing), then paneherd's hooks installed into it.
install_hooks() {
  local h
  for a in claude codex gemini; do
    h=$1/$a
    mkdir -p "$h/.codex" "$h/.gemini"
    case $a in
      claude) cp "$LAB/configs/claude.json" "$h/.claude.json" ;;
      codex) sed "s/18080/$PORT/" "$LAB/configs/codex-config.toml" >"$h/.codex/config.toml" ;;
      gemini) cp "$LAB/configs/gemini-settings.json" "$h/.gemini/settings.json" ;;
    esac
    HOME=$h CODEX_HOME=$h/.codex "$PANEHERD" hooks install "$a" >/dev/null || exit 2
  done
}

# trial LABEL HOOKED: one run over every agent, in fresh HOMEs, by one fresh daemon.
trial() {
  local home=$tmp/home-${2} rc
  mkdir -p "$home" "$tmp/work-$2"
  [ "$2" = 1 ] && install_hooks "$home"
  AGENTS_HOME=$home tmux -L "$sock" -f /dev/null new-session -d -s trial -x 120 -y 40 'bash --norc --noprofile' || exit 2
  tmux -L "$sock" set -g focus-events on
  ph start >/dev/null || { echo "lab-trial: the daemon did not start" >&2; exit 2; }
  echo "lab-trial: $1: $(uptime)"
  AGENTS_HOME=$home "$tmp/trial" -L "$sock" -env "$LAB/env.sh" -work "$tmp/work-$2" \
    -out "$out/$2" -label "$1" "${agents[@]}"
  rc=$?
  ph stop >/dev/null 2>&1
  cp "$tmp"/state/paneherd/*/daemon.log "$out/$2/" 2>/dev/null # its transitions, to read a recording by
  tmux -L "$sock" kill-server 2>/dev/null
  return $rc
}

fails=0
case $HOOKS in
  0) mkdir -p "$out/0"; trial "no hooks" 0 || fails=1 ;;
  1) mkdir -p "$out/1"; trial "hooks" 1 || fails=1 ;;
  both) mkdir -p "$out/0" "$out/1"; trial "no hooks" 0 || fails=1; trial "hooks" 1 || fails=1 ;;
  *) echo "lab-trial: TRIAL_HOOKS is 0, 1 or both" >&2; exit 2 ;;
esac
echo "lab-trial: reports and recordings in $out (internal/lab/trial -replay -out DIR measures a recording again)"
exit $fails
