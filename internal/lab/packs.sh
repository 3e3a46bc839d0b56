#!/usr/bin/env bash
# internal/lab/packs.sh [AGENT...] (make lab-packs): run the real agent CLIs offline (the agents lab: fakemodel.py and
# the npm-installed CLIs) in a private tmux server watched by a private paneherd daemon,
# drive each through the lab's situations, and print what paneherd read against what a
# person would say. Agents: opencode qwen (the default), claude, codex, gemini.
# Exit 0 when every reading matched, 1 when one did not, 2 when the lab is missing.
# Needs: bin/paneherd (make build), python3, tmux, the CLIs in $AGENTS_DIR (see the lab's
# README). Not part of `make test`: it takes minutes and needs the CLIs.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)   # the repository
LAB=${AGENTS_LAB:?set AGENTS_LAB to the agents lab (the folder with fakemodel.py and env.sh)}
AGENTS_DIR=${AGENTS_DIR:-$HOME/.cache/agents-lab}
PORT=${LAB_PORT:-18282}
PANEHERD=${PANEHERD:-$root/bin/paneherd}
WAIT=${LAB_WAIT:-40}   # seconds a situation may take to show

for need in "$LAB/fakemodel.py" "$LAB/env.sh" "$AGENTS_DIR/node_modules/.bin" "$PANEHERD"; do
  [ -e "$need" ] || { echo "lab-packs: $need is missing (AGENTS_LAB, AGENTS_DIR, PANEHERD; make build)" >&2; exit 2; }
done
agents=("$@"); [ ${#agents[@]} -gt 0 ] || agents=(opencode qwen)

# Everything private: a short TMUX_TMPDIR (socket paths over ~100 bytes fail), a tmux
# server of our own, the daemon's state, the agents' HOMEs and working dirs, the server log.
tmp=$(mktemp -d /tmp/labpk.XXXXXX)
export TMUX_TMPDIR=$tmp
unset TMUX
T=(tmux -L lab -f /dev/null)
# The daemon's state and config dirs are set for paneherd only: in the tmux server's
# environment they would reach the agents (opencode reads its config from XDG_CONFIG_HOME).
ph() { XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config "$PANEHERD" -L lab "$@"; }
fake_pid=
cleanup() {
  ph stop >/dev/null 2>&1
  "${T[@]}" kill-server 2>/dev/null
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$root/internal/lab/common.sh"
write_env
start_lab
ph start >/dev/null || { echo "lab-packs: the daemon did not start" >&2; exit 2; }

fails=0
printf '%-9s %-40s %-19s %-19s %s\n' AGENT SITUATION EXPECTED READ "PACK/RULE: SUMMARY"

# reading PANE: "STATE PACK RULE: SUMMARY" as the daemon has it now.
reading() {
  ph status --json 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin).get("panes", []):
    if p["pane_id"] == sys.argv[1]:
        print(p["state"], p.get("pack", ""), p.get("rule", "") + ":", p.get("summary", ""))' "$1"
}

# expect AGENT PANE SITUATION STATE [PACK]: wait up to $WAIT s for the daemon to read STATE
# (with that pack, default AGENT's), then print a row.
expect() {
  local agent=$1 pane=$2 what=$3 want=$4 pack=${5:-$1} got="" deadline=$((SECONDS + WAIT))
  while :; do
    got=$(reading "$pane")
    [ "${got%% *}" = "$want" ] && [ "$(echo "$got" | cut -d' ' -f2)" = "$pack" ] && break
    [ $SECONDS -ge $deadline ] && break
    sleep 0.5
  done
  local mark=ok read=${got%% *} rest=${got#* }
  if [ "$read" != "$want" ] || [ "$(echo "$got" | cut -d' ' -f2)" != "$pack" ]; then
    mark=MISMATCH; fails=$((fails + 1))
    "${T[@]}" capture-pane -p -t "$pane" >"$(dirname "$tmp")/lab-packs-$agent-$(echo "$what" | tr -c 'a-z0-9\n' '-').txt" 2>/dev/null
  fi
  printf '%-9s %-40s %-19s %-19s %s  %s\n' "$agent" "${what:0:40}" "$want" "${read:-?}" "${rest:0:70}" "$mark"
}

# screen_has PANE REGEX: wait until the pane shows REGEX (the CLI has drawn its screen);
# say so when it never does (the readings after it may then not be what they claim).
screen_has() {
  local deadline=$((SECONDS + WAIT))
  until "${T[@]}" capture-pane -p -t "$1" | grep -Eq "$2"; do
    if [ $SECONDS -ge $deadline ]; then
      echo "lab-packs: pane $1 never showed /$2/" >&2
      fails=$((fails + 1))
      return 1
    fi
    sleep 0.3
  done
}

keys() { "${T[@]}" send-keys -t "$1" "${@:2}"; }
# send PANE TEXT: once the daemon reads the pane READY (a turn just interrupted settles
# first), paneherd send: the pack's own way of submitting a prompt.
send() {
  local deadline=$((SECONDS + WAIT))
  until [ "$(reading "$1" | cut -d' ' -f1)" = READY ] || [ $SECONDS -ge $deadline ]; do sleep 0.3; done
  ph send "$1" "$2" >/dev/null || { echo "lab-packs: send to $1 failed: $2" >&2; fails=$((fails + 1)); }
}
answer() { ph "$2" "$1" "${@:3}" >/dev/null || { echo "lab-packs: $2 on $1 failed" >&2; fails=$((fails + 1)); }; }

# start AGENT: a new window running the CLI in a new working dir; prints the pane id.
start() {
  local pane
  pane=$("${T[@]}" new-window -P -F '#{pane_id}' -n "$1" 'bash --norc --noprofile')
  keys "$pane" ". $tmp/env.sh $1 && mkdir -p $tmp/work-$1 && cd $tmp/work-$1 && clear && $2" Enter
  echo "$pane"
}

# opencode stops a turn on the second Escape, once it says "esc again to interrupt".
interrupt_opencode() {
  keys "$1" Escape
  screen_has "$1" 'esc again to interrupt'
  keys "$1" Escape
  screen_has "$1" '^ +[~/][^ ]* .*ctrl\+p commands$' # the idle footer starts with the dir
}

lab_opencode() {
  local p; p=$(start opencode opencode)
  screen_has "$p" 'Ask anything'
  expect opencode "$p" "welcome, empty prompt" READY
  keys "$p" /; screen_has "$p" '┃ /[a-z-]+ {2,}[A-Z]'
  expect opencode "$p" "slash-command menu open" READY
  # (a key right after Escape would be read as Alt+key)
  keys "$p" Escape; sleep 0.3; keys "$p" BSpace
  send "$p" "hello there"
  screen_has "$p" 'What would you like to do next'
  expect opencode "$p" "after an answer" READY
  send "$p" "slowstream please"
  expect opencode "$p" "streaming" BUSY
  interrupt_opencode "$p"
  expect opencode "$p" "after interrupting" READY
  send "$p" "runcmd please"
  expect opencode "$p" "permission dialog (runcmd)" NEEDS_CONFIRMATION
  answer "$p" deny
  expect opencode "$p" "after denying (paneherd deny)" READY
  send "$p" "longcmd please"
  expect opencode "$p" "permission dialog (longcmd)" NEEDS_CONFIRMATION
  answer "$p" approve
  expect opencode "$p" "running a tool (paneherd approve)" BUSY
  interrupt_opencode "$p"
  expect opencode "$p" "after interrupting the tool" READY
  send "$p" "writefile please"
  expect opencode "$p" "permission dialog (writefile)" NEEDS_CONFIRMATION
  answer "$p" deny
  send "$p" "askquestion please"
  screen_has "$p" 'esc dismiss'
  expect opencode "$p" "question dialog (askquestion)" NEEDS_CONFIRMATION
  keys "$p" Escape
  expect opencode "$p" "after dismissing the question" READY
  # Late: a turn stopped before its first token leaves the prompt unanswered, and opencode
  # sends it again with the next one (the fake model would read "thinklong" in both).
  send "$p" "thinklong please"
  expect opencode "$p" "thinking before the first token" BUSY
  interrupt_opencode "$p"
  send "$p" "err401 please"
  expect opencode "$p" "request failed (err401)" ERROR
  keys "$p" C-c
  screen_has "$p" '^user@devbox:.*[#$] *$'
  expect opencode "$p" "after quitting" READY shell
}

lab_qwen() {
  local p; p=$(start qwen qwen)
  screen_has "$p" 'Type your message'
  expect qwen "$p" "welcome, empty prompt" READY
  keys "$p" /; screen_has "$p" '\([0-9]+/[0-9]+\)'
  expect qwen "$p" "slash-command menu open" READY
  # (a key right after Escape would be read as Alt+key)
  keys "$p" Escape; sleep 0.3; keys "$p" BSpace
  send "$p" "hello there"
  screen_has "$p" 'What would you like to do next'
  expect qwen "$p" "after an answer" READY
  send "$p" "slowstream please"
  expect qwen "$p" "streaming" BUSY
  keys "$p" Escape
  expect qwen "$p" "after cancelling" READY
  send "$p" "thinklong please"
  expect qwen "$p" "thinking before the first token" BUSY
  keys "$p" Escape
  screen_has "$p" 'Request cancelled'
  send "$p" "runcmd please"
  expect qwen "$p" "permission dialog (runcmd)" NEEDS_CONFIRMATION
  answer "$p" deny
  expect qwen "$p" "after denying (paneherd deny)" READY
  send "$p" "runcmd again please"
  expect qwen "$p" "permission dialog, again" NEEDS_CONFIRMATION
  answer "$p" approve
  screen_has "$p" '✓  Shell echo'
  expect qwen "$p" "after the approved command ran" READY
  # Qwen refuses the lab's `sleep 40` tool call outright; its shell mode runs one.
  # (keys that arrive together are read as a paste, where Enter is a newline)
  keys "$p" '!'; keys "$p" 'sleep 20'; sleep 0.5; keys "$p" Enter
  expect qwen "$p" "running a shell command (! mode)" BUSY
  keys "$p" Escape
  screen_has "$p" '^[!>]   Type your message'
  if "${T[@]}" capture-pane -p -t "$p" | grep -q '^!   Type'; then keys "$p" Escape; fi
  screen_has "$p" '^>   Type your message'
  send "$p" "err401 please"
  expect qwen "$p" "request failed (err401)" ERROR
  keys "$p" C-c; sleep 0.3; keys "$p" C-c
  screen_has "$p" '^user@devbox:.*[#$] *$'
  expect qwen "$p" "after quitting" READY shell
}

lab_claude() {
  local p; p=$(start claude claude)
  screen_has "$p" 'trust|❯'
  if "${T[@]}" capture-pane -p -t "$p" | grep -q 'trust'; then
    expect claude "$p" "folder trust dialog" NEEDS_CONFIRMATION
    answer "$p" approve
  fi
  expect claude "$p" "welcome, empty prompt" READY
  send "$p" "runcmd please"
  expect claude "$p" "permission dialog (runcmd)" NEEDS_CONFIRMATION
  answer "$p" deny
  send "$p" "askquestion please"
  expect claude "$p" "question dialog (askquestion)" NEEDS_CONFIRMATION
  keys "$p" Escape
  send "$p" "err401 please"
  expect claude "$p" "request failed (err401)" ERROR
}

lab_codex() {
  local p; p=$(start codex 'codex --no-daemon')
  screen_has "$p" 'trust|Ask Codex'
  if "${T[@]}" capture-pane -p -t "$p" | grep -qi 'trust'; then
    expect codex "$p" "folder trust dialog" NEEDS_CONFIRMATION
    keys "$p" Enter
  fi
  screen_has "$p" 'Ask Codex'
  expect codex "$p" "welcome, empty prompt" READY
  send "$p" "runcmd please"
  expect codex "$p" "permission dialog (runcmd)" NEEDS_CONFIRMATION
  answer "$p" deny
  send "$p" "err401 please"
  expect codex "$p" "request failed (err401)" ERROR
}

lab_gemini() {
  local p; p=$(start gemini gemini)
  screen_has "$p" 'trust|Type your message'
  if "${T[@]}" capture-pane -p -t "$p" | grep -qi 'trust'; then
    expect gemini "$p" "folder trust dialog" NEEDS_CONFIRMATION
    answer "$p" approve
  fi
  screen_has "$p" 'Type your message'
  expect gemini "$p" "welcome, empty prompt" READY
  send "$p" "runcmd please"
  expect gemini "$p" "permission dialog (runcmd)" NEEDS_CONFIRMATION
  answer "$p" deny
  send "$p" "err401 please"
  expect gemini "$p" "request failed (err401)" ERROR
}

for a in "${agents[@]}"; do
  case $a in
    opencode | qwen | claude | codex | gemini) "lab_$a" ;;
    *) echo "lab-packs: unknown agent $a (opencode qwen claude codex gemini)" >&2; fails=$((fails + 1)) ;;
  esac
done
[ $fails -eq 0 ] && echo "lab-packs: every reading matched" && exit 0
echo "lab-packs: $fails reading(s) did not match (screens in $(dirname "$tmp")/lab-packs-*.txt)"
exit 1
