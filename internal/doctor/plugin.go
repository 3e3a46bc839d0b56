package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/tmux"
)

const applyFix = "run 'paneherd plugin apply'"

// checkOptions reads every @paneherd- option. A value tmux holds that is not valid is a
// failure: paneherd quietly uses the default in its place.
func (d Doctor) checkOptions(ctx context.Context) (options.Values, []Check) {
	values, err := options.Load(ctx, d.Server)
	if err != nil {
		return options.Defaults(), []Check{fail("options", "cannot read them: "+err.Error(), "see the tmux line")}
	}
	return values, optionChecks(values.Problems)
}

func optionChecks(problems []string) []Check {
	if len(problems) == 0 {
		return []Check{ok("options", "every @paneherd- option set has a valid value")}
	}
	var checks []Check
	for _, p := range problems {
		checks = append(checks, fail("options", p, "set a valid value (docs/options.md), then "+applyFix))
	}
	return checks
}

// readSep separates the outputs of the reads chained in one tmux call.
const readSep = "paneherd-doctor-read-separator"

// checkPlugin reads, in one tmux call, what `plugin apply` changes: the status line and
// the hooks. (Key bindings and update-environment it leaves alone: a person may have
// bound their own keys on purpose, and notify reads the environment itself.)
func (d Doctor) checkPlugin(ctx context.Context, values options.Values) []Check {
	// pane-exited and pane-died are window hooks: set-hook -g puts them among the global
	// window options, which only show-hooks -gw lists.
	out, err := d.Server.Run(ctx, nil, tmux.Chain([][]string{
		{"show-options", "-gv", "status-left"}, {"display-message", "-p", readSep},
		{"show-options", "-gv", "status-right"}, {"display-message", "-p", readSep},
		{"show-hooks", "-g"}, {"show-hooks", "-gw"},
	})...)
	parts := strings.Split(out, readSep+"\n")
	if err != nil || len(parts) != 3 {
		return []Check{fail("plugin", fmt.Sprintf("cannot read status-left/right and the hooks: %v", err), "see the tmux line")}
	}
	p := plugin.Plugin{Server: d.Server, Binary: d.Binary, Values: values}
	var want []wantHook
	for _, h := range hooks.Tmux {
		want = append(want, wantHook{fmt.Sprintf("%s[%d]", h.Name, hooks.Index), h.Command(d.Binary, d.Server.SocketPath())})
	}
	left, right := strings.TrimSuffix(parts[0], "\n"), strings.TrimSuffix(parts[1], "\n")
	return []Check{statusCheck(left, right, p.Segment(), options.StatusMode.In(values)), hooksCheck(parts[2], want)}
}

// statusCheck says whether status-left or status-right shows the badges as the plugin
// would put them now (this binary, this server, this status mode).
func statusCheck(left, right, segment, mode string) Check {
	if in := holder(left, right, plugin.Pending); in != "" {
		return fail("status-bar", in+" waits for the plugin's build (the bar says how it goes)",
			"when the build ends the plugin applies itself; if it failed, read ~/.cache/paneherd/build.log, fix it, then "+applyFix)
	}
	if in := holder(left, right, plugin.Placeholder); in != "" {
		return fail("status-bar", in+" still holds the raw "+plugin.Placeholder+": the plugin was not applied",
			applyFix+" (TPM runs it through paneherd.tmux)")
	}
	if in := holder(left, right, segment); in != "" {
		return ok("status-bar", in+" shows the badges ("+mode+" mode)")
	}
	if in := holder(left, right, "paneherd"); in != "" {
		return warn("status-bar", in+" holds a paneherd segment for another binary, server or status mode", applyFix)
	}
	return warn("status-bar", "no paneherd badges in status-left or status-right",
		"put "+plugin.Placeholder+" in one (set -g status-right '"+plugin.Placeholder+" %H:%M'), then "+applyFix)
}

// holder names the status options that contain s.
func holder(left, right, s string) string {
	var in []string
	if strings.Contains(left, s) {
		in = append(in, "status-left")
	}
	if strings.Contains(right, s) {
		in = append(in, "status-right")
	}
	return strings.Join(in, " and ")
}

// wantHook is one tmux hook as the plugin sets it: NAME[INDEX] and its command.
type wantHook struct{ key, command string }

// hooksCheck compares show-hooks' lines ("NAME[77] COMMAND") with the hooks the plugin
// would set now. Missing hooks are a warning: the daemon still finds every change by
// itself, only later, and a crashed daemon waits for the status bar to revive it.
func hooksCheck(shown string, want []wantHook) Check {
	have := map[string]string{}
	for _, line := range strings.Split(shown, "\n") {
		if key, command, found := strings.Cut(line, " "); found {
			have[key] = command
		}
	}
	var missing, other []string
	for _, w := range want {
		command, found := have[w.key]
		switch {
		case !found:
			missing = append(missing, w.key)
		case command != w.command:
			other = append(other, w.key)
		}
	}
	switch {
	case len(missing) == len(want):
		return warn("tmux-hooks", "none installed (the daemon finds changes later by itself, and a crashed one is revived only by the status bar)", applyFix)
	case len(missing) > 0:
		return warn("tmux-hooks", fmt.Sprintf("%d of %d missing: %s", len(missing), len(want), strings.Join(missing, ", ")), applyFix)
	case len(other) > 0:
		return warn("tmux-hooks", fmt.Sprintf("%d of %d run another paneherd binary or server: %s", len(other), len(want), strings.Join(other, ", ")), applyFix)
	}
	return ok("tmux-hooks", fmt.Sprintf("all %d installed (index %d), running this paneherd", len(want), hooks.Index))
}
