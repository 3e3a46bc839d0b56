#!/usr/bin/env bash
# make lab-hooks: run the real Claude Code, Codex and Gemini CLIs (the agents lab,
# $AGENTS_LAB/README.md) offline against fakemodel.py, with paneherd's hooks
# installed by `paneherd hooks install`, and check that the daemon heard each agent's
# events and moved the panes by them. Not part of `make test`: it needs the CLIs
# (~/.cache/agents-lab) and takes about a minute.
#
# Environment: LAB (the agents lab dir), AGENTS_DIR (where the CLIs are installed),
# LAB_PORT (the fake model's port, default 18181; one already listening is used).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)   # the repository
LAB=${AGENTS_LAB:?set AGENTS_LAB to the agents lab (the folder with fakemodel.py and env.sh)}
export AGENTS_DIR=${AGENTS_DIR:-$HOME/.cache/agents-lab}
PORT=${LAB_PORT:-18181}
[ -x "$AGENTS_DIR/node_modules/.bin/claude" ] || { echo "lab-hooks: no agent CLIs in $AGENTS_DIR: set them up as $LAB/README.md says" >&2; exit 1; }
[ -f "$LAB/fakemodel.py" ] || { echo "lab-hooks: no agents lab at $LAB: set AGENTS_LAB" >&2; exit 1; }

tmp=$(mktemp -d /tmp/lab-hooks.XXXXXX)
sock=labhooks-$$
fake_pid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
	if [ "${KEEP:-}" = 1 ]; then echo "lab-hooks: kept $tmp"; else rm -rf "$tmp" 2>/dev/null || { sleep 1; rm -rf "$tmp"; }; fi
}
trap cleanup EXIT

echo "lab-hooks: building paneherd"
(cd "$root" && go build -o "$tmp/paneherd" ./cmd/paneherd)
ph=$tmp/paneherd

if ! (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; then
	FAKE_LOG=$tmp/fakemodel.log python3 "$LAB/fakemodel.py" "$PORT" >"$tmp/fakemodel.out" 2>&1 &
	fake_pid=$!
fi

export XDG_STATE_HOME=$tmp/state PANEHERD_LOG_LEVEL=debug

# wait_for WHAT SECONDS COMMAND...: poll until the command succeeds.
wait_for() {
	local what=$1 secs=$2; shift 2
	local end=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		if ((SECONDS >= end)); then
			echo "lab-hooks: FAILED: no $what within ${secs}s" >&2
			for s in claude codex gemini; do echo "--- $s" >&2; tmux -L "$sock" capture-pane -p -t "$s" 2>/dev/null | grep -v '^$' | tail -15 >&2; done
			echo "--- daemon log" >&2; tail -30 "$tmp"/state/paneherd/*/daemon.log >&2 || true
			exit 1
		fi
		sleep 0.2
	done
}
wait_for "fake model on port $PORT" 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT"

# Each agent's HOME, prepared as env.sh would, on this port, with paneherd's hooks.
export AGENTS_HOME=$tmp/homes
for a in claude codex gemini; do
	h=$AGENTS_HOME/$a
	mkdir -p "$h/.codex" "$h/.gemini"
	case $a in
	claude) cp "$LAB/configs/claude.json" "$h/.claude.json" ;;
	codex) sed "s/18080/$PORT/" "$LAB/configs/codex-config.toml" >"$h/.codex/config.toml" ;;
	gemini) cp "$LAB/configs/gemini-settings.json" "$h/.gemini/settings.json" ;;
	esac
	HOME=$h CODEX_HOME=$h/.codex "$ph" hooks install "$a"
done

# Panes run a bare shell (a user's rc files may be slow, or wait on a lock).
mkdir -p "$tmp/work"
tmux -L "$sock" -f /dev/null new-session -d -s claude -x 120 -y 40 'bash --noprofile --norc' \; \
	set -g default-command 'bash --noprofile --norc' \; set -g focus-events on
tmux -L "$sock" new-session -d -s codex -x 120 -y 40
tmux -L "$sock" new-session -d -s gemini -x 120 -y 40
"$ph" -L "$sock" start

pane() { tmux -L "$sock" display-message -p -t "$1" '#{pane_id}'; }
shows() { tmux -L "$sock" capture-pane -p -t "$1" | grep -q -- "$2"; }
logged() { grep -q "\"agent\":\"$1\",\"event\":\"$2\"" "$tmp"/state/paneherd/*/daemon.log; }
type_line() { tmux -L "$sock" send-keys -t "$1" -l "$2"; sleep 0.3; tmux -L "$sock" send-keys -t "$1" Enter; }

for a in claude codex gemini; do
	start=$a
	[ $a = codex ] && start='codex --no-daemon'
	type_line "$a" ". $LAB/env.sh $a && export ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$PORT && cd $tmp/work && $start"
done

# First-run trust dialogs: Claude and Gemini ask about the folder; Codex warns (f2).
wait_for "Claude's trust dialog" 60 shows claude "trust this folder"
tmux -L "$sock" send-keys -t claude Enter
wait_for "Gemini's trust dialog" 60 shows gemini "Trust folder"
tmux -L "$sock" send-keys -t gemini Enter
wait_for "Claude's prompt" 60 shows claude "for shortcuts"
wait_for "Codex's prompt" 60 shows codex "Ask Codex"
wait_for "Gemini's prompt" 90 shows gemini "Type your message"
wait_for "Claude's SessionStart hook" 30 logged claude SessionStart
# (Gemini's SessionStart is not awaited: it restarts itself after the trust dialog, and
# in one of the first two runs here its SessionStart was never logged; cause not known.)

for a in claude codex gemini; do type_line "$a" "please runcmd now"; done
wait_for "Claude's UserPromptSubmit hook" 30 logged claude UserPromptSubmit
wait_for "Claude's PreToolUse hook" 30 logged claude PreToolUse
wait_for "Claude's permission Notification hook" 30 logged claude Notification
wait_for "Gemini's BeforeAgent hook" 30 logged gemini BeforeAgent
wait_for "Gemini's BeforeTool hook" 30 logged gemini BeforeTool
wait_for "Gemini's ToolPermission Notification hook" 30 logged gemini Notification
wait_for "Codex's dialog" 30 shows codex "Would you like to run"
for a in claude codex gemini; do tmux -L "$sock" send-keys -t "$a" Enter; done
wait_for "Claude's PostToolUse hook" 30 logged claude PostToolUse
wait_for "Claude's Stop hook" 30 logged claude Stop
wait_for "Gemini's AfterTool hook" 30 logged gemini AfterTool
wait_for "Gemini's AfterAgent hook" 30 logged gemini AfterAgent
# Codex also completes a hidden title turn (kind title-turn): wait for the real one.
wait_for "Codex's agent-turn-complete" 30 grep -q '"agent":"codex","event":"agent-turn-complete","pane":"[^"]*","kind":""' "$tmp"/state/paneherd/*/daemon.log

# The hooks moved the panes: transitions whose rule is a hook's.
for a in claude codex gemini; do
	id=$(pane "$a")
	echo "--- $a ($id): transitions"
	"$ph" -L "$sock" history "$id" --limit 20 | tee "$tmp/history-$a"
done
for a in claude gemini; do
	grep -q "hook:$a:" "$tmp/history-$a" || { echo "lab-hooks: FAILED: no transition of $a's pane came from a hook" >&2; exit 1; }
done
"$ph" -L "$sock" status --json >"$tmp/status.json"
grep -c '"witness"' "$tmp/status.json" >/dev/null
if grep -q '"level":"warn".*agent hook not understood' "$tmp"/state/paneherd/*/daemon.log; then
	echo "lab-hooks: FAILED: the daemon could not read a hook:" >&2
	grep 'agent hook not understood' "$tmp"/state/paneherd/*/daemon.log >&2
	exit 1
fi
echo "--- agent events the daemon heard"
grep -o '"agent":"[a-z]*","event":"[A-Za-z-]*"' "$tmp"/state/paneherd/*/daemon.log | sort | uniq -c
"$ph" -L "$sock" stop >/dev/null
echo "lab-hooks: ok: the daemon heard Claude Code, Codex and Gemini CLI through their hooks"
