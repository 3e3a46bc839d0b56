#!/usr/bin/env bash
# TPM entry point. TPM runs every plugin's root *.tmux file with run-shell, one after the
# other, and waits for each. The status bar and key bindings are set here in the
# foreground when the binary is already built (two tmux calls), or the bar says it is
# being built (a few tmux calls) when it is not: plugins loaded after this
# one read and change status-right too, and must see our change. Building, and starting
# the daemon, happen in the background, so tmux start-up never waits on them.
plugin_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -x "$plugin_dir/bin/paneherd" ]; then
	"$plugin_dir/bin/paneherd" plugin apply --no-daemon </dev/null >/dev/null 2>&1
else
	# No binary yet: the bar says it is being built, where the badges will be.
	"$plugin_dir/tmux-plugin/paneherd.sh" pending </dev/null >/dev/null 2>&1
fi
"$plugin_dir/tmux-plugin/paneherd.sh" </dev/null >/dev/null 2>&1 &
