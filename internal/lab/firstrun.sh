#!/usr/bin/env bash
# internal/lab/firstrun.sh [AGENT...] (make lab-firstrun): each builtin pack's first start
# with the real CLI, offline (the agents lab: fakemodel.py and the npm-installed CLIs),
# managed by a private daemon, in a fresh HOME:
#   create   `create --pack A --prompt` in an untrusted git repository: the trust dialog
#            ends the wait (needs_confirmation) and the prompt is queued; opencode asks
#            nothing: reached, the prompt delivered
#   approve  `approve` answers the dialog; the queued prompt is then answered
#   deny     a second worker in another untrusted repository: `deny` answers its dialog
#   retire   retiring both leaves no process running with the agent's HOME
#   history  `history NAME` still finds the retired worker's history
# Qwen Code asks about trust only with its folder trust on: its settings here turn it on.
# Agents: claude codex gemini opencode qwen (the default: all). Exit 0 when every check
# passed, 1 when one did not, 2 when the lab is missing. Not part of `make test`.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)   # the repository
LAB=${AGENTS_LAB:?set AGENTS_LAB to the agents lab (the folder with fakemodel.py and env.sh)}
AGENTS_DIR=${AGENTS_DIR:-$HOME/.cache/agents-lab}
PORT=${LAB_PORT:-18284}
PANEHERD=${PANEHERD:-$root/bin/paneherd}
WAIT=${LAB_WAIT:-60}   # seconds a CLI may take to start or answer

for need in "$LAB/fakemodel.py" "$LAB/env.sh" "$AGENTS_DIR/node_modules/.bin" "$PANEHERD"; do
  [ -e "$need" ] || { echo "lab-firstrun: $need is missing (AGENTS_LAB, AGENTS_DIR, PANEHERD; make build)" >&2; exit 2; }
done
agents=("$@"); [ ${#agents[@]} -gt 0 ] || agents=(claude codex gemini opencode qwen)

tmp=$(mktemp -d /tmp/labfr.XXXXXX)
export TMUX_TMPDIR=$tmp
unset TMUX
fake_pid=
agent=
T=()
# ph runs paneherd against the current agent's server; its state and config dirs are for
# paneherd only (opencode reads XDG_CONFIG_HOME).
ph() { XDG_STATE_HOME=$tmp/state-$agent XDG_CONFIG_HOME=$tmp/config-$agent "$PANEHERD" -L "$agent" "$@"; }
stop_agent() {
  [ -n "$agent" ] || return
  ph stop >/dev/null 2>&1
  "${T[@]}" kill-server 2>/dev/null
}
cleanup() {
  stop_agent
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$root/internal/lab/common.sh"
write_env
FAKE_LOG=$tmp/fakemodel.log python3 "$LAB/fakemodel.py" "$PORT" >"$tmp/fake.out" 2>&1 &
fake_pid=$!

fails=0
row() { # CHECK ok|FAIL DETAIL
  printf '%-9s %-8s %-5s %s\n' "$agent" "$1" "$2" "$3"
  [ "$2" = ok ] || fails=$((fails + 1))
}
field() { python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=(v or {}).get(k) if isinstance(v, dict) else None
print(v if v is not None else "")' "$1"; }
screen() { "${T[@]}" capture-pane -p -t "$1" 2>/dev/null; }
# shows PANE TEXT: wait up to WAIT s until the pane shows TEXT.
shows() {
  local deadline=$((SECONDS + WAIT))
  until screen "$1" | grep -qF "$2"; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.5
  done
}
# leftovers: processes running with the agent's HOME, but for its tmux server and the
# shell of the session the server was started with.
leftovers() {
  local home=$tmp/home/$agent keep pid
  keep=" $("${T[@]}" display -p -t main: '#{pid} #{pane_pid}') "
  for f in /proc/[0-9]*/environ; do
    pid=${f#/proc/}; pid=${pid%/environ}
    [[ $keep == *" $pid "* ]] && continue
    grep -qsxz "HOME=$home" "$f" && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] && echo "$pid"
  done
}
# repo NAME: a fresh git repository the agent has never been told to trust.
repo() { local d=$tmp/work-$agent/$1; mkdir -p "$d" && git -C "$d" init -q && echo "$d"; }

check() {
  agent=$1
  T=(tmux -L "$agent" -f /dev/null)
  # The server's environment is the agent's (HOME, keys, the fake model's URL): its
  # workers inherit it.
  (
    . "$tmp/env.sh" "$agent" >/dev/null
    [ "$agent" = qwen ] && echo '{"general":{"disableAutoUpdate":true,"enableAutoUpdate":false},"security":{"folderTrust":{"enabled":true}}}' >"$HOME/.qwen/settings.json"
    "${T[@]}" new-session -d -s main -x 120 -y 40 'bash --norc --noprofile'
  ) || { row setup FAIL "no tmux server"; return; }
  "${T[@]}" set -g default-size 120x40 \; set -g @paneherd-workspaces "$tmp"
  ph start >/dev/null || { row setup FAIL "the daemon did not start"; return; }

  local want=needs_confirmation queued=QUEUED
  [ "$agent" = opencode ] && want=reached queued=DELIVERED
  local out final prompt pane ms
  out=$(ph create "$(repo app)" --name "${agent}1" --pack "$agent" --prompt "hello firstrun" --timeout "${WAIT}s" --json 2>/dev/null)
  final=$(field started.final_state <<<"$out") prompt=$(field prompt.outcome <<<"$out")
  pane=$(field worker.pane_id <<<"$out") ms=$(field started.elapsed_ms <<<"$out")
  if [ "$final" = "$want" ] && [ "$prompt" = "$queued" ]; then
    row create ok "$final after ${ms} ms ($(field started.summary <<<"$out")), prompt $prompt"
  else
    row create FAIL "$final, prompt $prompt; want $want, $queued: $(screen "$pane" | grep -v '^\s*$' | tail -3 | tr '\n' '|')"
  fi
  if [ "$final" = needs_confirmation ]; then
    out=$(ph approve "${agent}1" 2>&1)
    [[ $out == *ANSWERED* ]] || row approve FAIL "$out"
  fi
  if [ "$final" = reached ] || [[ ${out:-} == *ANSWERED* ]]; then
    if shows "$pane" "fake model running on localhost"; then row approve ok "the queued prompt was answered"; else row approve FAIL "no answer: $(screen "$pane" | grep -v '^\s*$' | tail -3 | tr '\n' '|')"; fi
  fi

  if [ "$agent" != opencode ]; then
    out=$(ph create "$(repo other)" --name "${agent}2" --pack "$agent" --timeout "${WAIT}s" --json 2>/dev/null)
    if [ "$(field started.final_state <<<"$out")" != needs_confirmation ]; then
      row deny FAIL "no dialog: $(field started.final_state <<<"$out")"
    else
      out=$(ph deny "${agent}2" 2>&1)
      if [[ $out == *ANSWERED* ]]; then row deny ok "$out"; else row deny FAIL "$out"; fi
    fi
    ph retire "${agent}2" >/dev/null 2>&1
  fi

  out=$(ph retire "${agent}1" 2>&1) || row retire FAIL "$out"
  local left deadline=$((SECONDS + 5))
  until left=$(leftovers) && [ -z "$left" ] || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
  if [ -z "$left" ]; then
    row retire ok "no process left; \$HOME $(du -sh "$tmp/home/$agent" | cut -f1)"
  else
    row retire FAIL "left running: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-80; echo; done | tr '\n' '|')"
    kill $left 2>/dev/null
  fi
  if ph history "${agent}1" 2>/dev/null | grep -q "${agent}1 retired"; then row history ok "history ${agent}1 after retire"; else row history FAIL "history ${agent}1: $(ph history "${agent}1" 2>&1 | tail -1)"; fi
  stop_agent
}

printf '%-9s %-8s %-5s %s\n' AGENT CHECK OK DETAIL
for a in "${agents[@]}"; do
  check "$a"
done
agent=
[ $fails -eq 0 ]
