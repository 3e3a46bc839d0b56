# Sourced by the lab scripts (packs.sh, launch.sh, firstrun.sh, trial.sh, calibrate.sh): what
# they share. Needs LAB (the agents lab), AGENTS_DIR, PORT, tmp (the run's temp dir) and, for
# start_lab, T (the tmux command, an array).

# write_env writes $tmp/env.sh: the lab's env.sh with our port. The URLs it exports are
# rewritten, and opencode's and Codex's configs (copied only when missing) are written
# first with the port in them.
write_env() {
  cat >"$tmp/env.sh" <<EOF
export AGENTS_HOME=$tmp/home AGENTS_DIR=$AGENTS_DIR
case \$1 in
  opencode) mkdir -p \$AGENTS_HOME/opencode/.config/opencode
    sed 's/18080/$PORT/' $LAB/configs/opencode.json >\$AGENTS_HOME/opencode/.config/opencode/opencode.json ;;
  codex) mkdir -p \$AGENTS_HOME/codex/.codex
    sed 's/18080/$PORT/' $LAB/configs/codex-config.toml >\$AGENTS_HOME/codex/.codex/config.toml ;;
esac
. $LAB/env.sh "\$1"
for v in ANTHROPIC_BASE_URL GOOGLE_GEMINI_BASE_URL OPENAI_BASE_URL; do
  [ -z "\${!v:-}" ] || export \$v="\${!v/18080/$PORT}"
done
EOF
}

# start_lab starts the fake model server on PORT (its pid in fake_pid) and the lab's tmux
# session, where the agents run.
start_lab() {
  FAKE_LOG=$tmp/fakemodel.log python3 "$LAB/fakemodel.py" "$PORT" >"$tmp/fake.out" 2>&1 &
  fake_pid=$!
  "${T[@]}" new-session -d -s lab -x 120 -y 40 'bash --norc --noprofile' || exit 2
  "${T[@]}" set -g focus-events on
}

# ensure_fake_model starts the fake model server on PORT unless one listens there already
# (then fake_pid stays empty: it is not ours to stop).
ensure_fake_model() {
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    FAKE_LOG=$tmp/fakemodel.log python3 "$LAB/fakemodel.py" "$PORT" >"$tmp/fake.out" 2>&1 &
    fake_pid=$!
    sleep 1
  fi
}
