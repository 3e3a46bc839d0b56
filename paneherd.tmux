#!/usr/bin/env bash
# TPM entry point. TPM runs every root *.tmux file with run-shell and waits for it, so this
# hands everything to the plugin script in the background and returns at once: tmux
# start-up never waits on a build.
plugin_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$plugin_dir/tmux-plugin/paneherd.sh" </dev/null >/dev/null 2>&1 &
