#!/usr/bin/env bash
# internal/lab/launch.sh [AGENT...] (make lab-launch): check each builtin pack's [launch] and
# [actions] interrupt and nudge against the real CLI, offline (the agents lab: fakemodel.py
# and the npm-installed CLIs), in a private tmux server:
#   launch     the pack's command starts the CLI and it answers a prompt
#   quit-idle  the interrupt keys make the idle CLI exit
#   resume     the resume command shows the earlier exchange again
#   quit-busy  the interrupt keys make the CLI exit while it streams an answer
#   nudge      while a request hangs, the nudge keys leave it working (the pack reads BUSY
#              before and after, and the process runs)
# Keys are pressed one at a time, 300 ms apart, as the supervisor presses them.
# Agents: claude codex gemini opencode qwen (the default: all). Exit 0 when every check
# passed, 1 when one did not, 2 when the lab is missing. Not part of `make test`.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)   # the repository
LAB=${AGENTS_LAB:?set AGENTS_LAB to the agents lab (the folder with fakemodel.py and env.sh)}
AGENTS_DIR=${AGENTS_DIR:-$HOME/.cache/agents-lab}
PORT=${LAB_PORT:-18283}
PANEHERD=${PANEHERD:-$root/bin/paneherd}
WAIT=${LAB_WAIT:-40}   # seconds a screen may take to show

for need in "$LAB/fakemodel.py" "$LAB/env.sh" "$AGENTS_DIR/node_modules/.bin" "$PANEHERD"; do
  [ -e "$need" ] || { echo "lab-launch: $need is missing (AGENTS_LAB, AGENTS_DIR, PANEHERD; make build)" >&2; exit 2; }
done
agents=("$@"); [ ${#agents[@]} -gt 0 ] || agents=(claude codex gemini opencode qwen)

tmp=$(mktemp -d /tmp/lablc.XXXXXX)
export TMUX_TMPDIR=$tmp
unset TMUX
T=(tmux -L lab -f /dev/null)
fake_pid=
cleanup() {
  "${T[@]}" kill-server 2>/dev/null
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$root/internal/lab/common.sh"
write_env
start_lab

# field AGENT KEY: the pack's launch.command, launch.resume, actions.interrupt or
# actions.nudge (key lists space-separated).
field() {
  python3 - "$root/packs/builtin/$1.toml" "$2" <<'EOF'
import sys, tomllib
pack = tomllib.load(open(sys.argv[1], "rb"))
section, key = sys.argv[2].split(".")
v = pack.get(section, {}).get(key, "")
print(" ".join(v) if isinstance(v, list) else v)
EOF
}

fails=0
row() { # AGENT CHECK ok|FAIL DETAIL
  printf '%-9s %-10s %-5s %s\n' "$1" "$2" "$3" "$4"
  if [ "$3" != ok ]; then
    fails=$((fails + 1))
    "${T[@]}" capture-pane -p -t "$pane" >"$(dirname "$tmp")/lab-launch-$1-$2.txt" 2>/dev/null
  fi
}

screen() { "${T[@]}" capture-pane -p -t "$pane"; }
# shows REGEX: wait until the pane shows REGEX; 1 when it never does.
shows() {
  local deadline=$((SECONDS + WAIT))
  until screen | grep -Eq "$1"; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.3
  done
}
running() { [ "$("${T[@]}" display -p -t "$pane" '#{pane_current_command}')" != bash ]; }
# gone: the CLI exited within 15 s and the pane's shell is in front again.
gone() {
  local deadline=$((SECONDS + 15))
  while running; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.3
  done
}
press() { # KEY...: one at a time, 300 ms apart
  for k in "$@"; do "${T[@]}" send-keys -t "$pane" "$k"; sleep 0.3; done
}
# prompt TEXT: type it, and once the box shows it, Enter. (A CLI that has just drawn its
# box may drop what is typed while it loads a session: type again.)
prompt() {
  local try
  for try in 1 2 3; do
    "${T[@]}" send-keys -t "$pane" -l "$1"
    sleep 1
    screen | grep -qF "$1" && break
  done
  "${T[@]}" send-keys -t "$pane" Enter
}
reads() { screen >"$tmp/screen.txt"; "$PANEHERD" classify --pack "$1" "$tmp/screen.txt" | head -1; }

# start AGENT LINE: run LINE in the agent's working dir, answer first-run trust dialogs,
# wait for the input box.
start() {
  # (opencode's first start installs a plugin from the npm registry: twice the wait)
  local line=$2 ready deadline=$((SECONDS + 2 * WAIT))
  "${T[@]}" send-keys -t "$pane" "clear; $line" Enter
  case $1 in
    claude) ready='for shortcuts' ;;
    codex) ready='^› ' ;;
    gemini | qwen) ready='Type your message' ;;
    opencode) ready='ctrl\+p commands' ;;
  esac
  # Gemini draws its input box before the trust dialog: ready is the box with no dialog,
  # twice, a second apart.
  local seen=0
  while [ $seen -lt 2 ]; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 1
    if screen | grep -Eq 'trust this folder|Do you trust the files'; then
      "${T[@]}" send-keys -t "$pane" Enter; seen=0; sleep 2
    elif screen | grep -Eq "$ready"; then
      seen=$((seen + 1))
    fi
  done
}

check() {
  local agent=$1 command resume interrupt nudge marker=launch-marker-$RANDOM
  command=$(field "$agent" launch.command) resume=$(field "$agent" launch.resume)
  read -ra interrupt <<<"$(field "$agent" actions.interrupt)"
  read -ra nudge <<<"$(field "$agent" actions.nudge)"
  pane=$("${T[@]}" new-window -P -F '#{pane_id}' -n "$agent" 'bash --norc --noprofile')
  "${T[@]}" send-keys -t "$pane" ". $tmp/env.sh $agent && mkdir -p $tmp/work-$agent && cd $tmp/work-$agent" Enter

  if start "$agent" "$command" && { prompt "hello $marker"; shows 'fake model running on localhost'; }; then
    row "$agent" launch ok "$command"
  else
    row "$agent" launch FAIL "$command: no answer"; return
  fi
  press "${interrupt[@]}"
  if gone; then row "$agent" quit-idle ok "${interrupt[*]}"; else row "$agent" quit-idle FAIL "${interrupt[*]}: still running"; return; fi

  if start "$agent" "$resume" && shows "$marker"; then
    row "$agent" resume ok "$resume"
  else
    row "$agent" resume FAIL "$resume: the earlier exchange is not on screen"; return
  fi
  prompt "slowstream please"
  shows 'quick brown fox' || { row "$agent" quit-busy FAIL "never streamed"; return; }
  press "${interrupt[@]}"
  if gone; then row "$agent" quit-busy ok "${interrupt[*]}"; else row "$agent" quit-busy FAIL "${interrupt[*]}: still running"; return; fi

  start "$agent" "$command" || { row "$agent" nudge FAIL "did not start"; return; }
  prompt "hangforever $marker"
  sleep 6
  if [ ${#nudge[@]} -eq 0 ]; then
    row "$agent" nudge ok "(none)"
  else
    local before after
    before=$(reads "$agent")
    press "${nudge[@]}"
    sleep 3
    after=$(reads "$agent")
    if [ "$before" = BUSY ] && [ "$after" = BUSY ] && running; then
      row "$agent" nudge ok "${nudge[*]}: still BUSY"
    else
      row "$agent" nudge FAIL "${nudge[*]}: read $before, then $after"
    fi
  fi
  press "${interrupt[@]}"
  gone || row "$agent" quit-hung FAIL "${interrupt[*]}: still running"
}

printf '%-9s %-10s %-5s %s\n' AGENT CHECK OK DETAIL
for agent in "${agents[@]}"; do
  check "$agent"
  "${T[@]}" kill-window -t "$pane" 2>/dev/null
done
[ $fails -eq 0 ]
