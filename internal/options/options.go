// Package options declares every tmux option paneherd reads, each once, with its default,
// and reads them all from tmux in one call. The user's value always wins; the defaults
// live here and nowhere else, and the README's options table is checked against them.
package options

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/statusline"
	"github.com/paneherd/paneherd/store"
)

// Option is one @paneherd-... tmux option.
type Option struct {
	Name    string // without the "@paneherd-" prefix
	Default string
	Doc     string
}

// Prefix starts every paneherd option.
const Prefix = "@paneherd-"

// All is every option, in the order the README lists them.
var All = []Option{
	{"status-mode", "push", "`push`: the daemon sets `@paneherd_status` when the line changes and tmux redraws at once, no fork; `job`: `#(paneherd status --short)`, refreshed every `status-interval`"},
	{"format", "[{name}: {state}]", "one badge; `{name}`, `{state}`, `{icon}`, `{summary}` are replaced (escaped)"},
	{"show", "all", "which panes get a badge: `all`, or `active` (hide plain shells sitting idle at their prompt)"},
	{"style-ready", "fg=green", "tmux style of READY badges (empty: none)"},
	{"style-busy", "fg=yellow", "style of BUSY badges"},
	{"style-needs-confirmation", "fg=red,bold", "style of NEEDS_CONFIRMATION badges"},
	{"style-error", "fg=red", "style of ERROR badges"},
	{"style-stalled", "fg=magenta", "style of STALLED badges"},
	{"style-offline", "fg=colour244", "style of OFFLINE badges"},
	{"style-unknown", "fg=colour244", "style of UNKNOWN badges"},
	{"icon-ready", "✔", "`{icon}` for READY"},
	{"icon-busy", "…", "`{icon}` for BUSY"},
	{"icon-needs-confirmation", "?", "`{icon}` for NEEDS_CONFIRMATION"},
	{"icon-error", "✖", "`{icon}` for ERROR"},
	{"icon-stalled", "⏸", "`{icon}` for STALLED"},
	{"icon-offline", "⨯", "`{icon}` for OFFLINE"},
	{"icon-unknown", "·", "`{icon}` for UNKNOWN"},
	{"tick", "1s", "how often the daemon looks at every pane"},
	{"log-level", "info", "daemon log level: debug, info, warn, error"},
	{"key-menu", "a", "prefix key: a menu of workers and their states; choosing one jumps to it (empty: no binding)"},
	{"key-next", "A", "prefix key: jump to the next pane needing attention: NEEDS_CONFIRMATION, then ERROR, then newly READY"},
	{"notify-backend", "auto", "`auto`: desktop notification when a session bus is known, else a message on the attached tmux clients; `desktop`, `tmux`, or `off`"},
	{"notify-needs-confirmation", "on", "notify when a pane starts waiting for a confirmation (critical urgency)"},
	{"notify-finished", "on", "notify when a pane goes from BUSY to READY: its work is done (says how long it ran)"},
	{"notify-error", "on", "notify when a pane enters ERROR (critical urgency)"},
	{"notify-stalled", "on", "notify when a pane enters STALLED"},
	{"notify-exited", "on", "notify when a pane's process dies (remain-on-exit), with its exit status when known, or an agent's CLI exits to its shell"},
	{"notify-finished-min", "10s", "notify of finished work only when the pane was BUSY at least this long"},
	{"notify-dedupe", "90s", "the same pane and state notify at most once within this window"},
	{"notify-pane-limit", "3", "at most this many notifications per pane per minute"},
	{"notify-burst", "1s", "changes of several panes this close together become one summary notification"},
	{"notify-bell", "off", "also ring the terminal bell of attached clients when notifying through tmux"},
}

// Values are the options as set in tmux, with defaults for the rest.
type Values map[string]string

// Defaults returns every option at its default.
func Defaults() Values {
	v := make(Values, len(All))
	for _, o := range All {
		v[o.Name] = o.Default
	}
	return v
}

// Get returns an option's value; asking for an undeclared option is a bug.
func (v Values) Get(name string) string {
	val, ok := v[name]
	if !ok {
		panic("options: undeclared option " + name)
	}
	return val
}

// Load reads every global @paneherd- option in one tmux call. show-options says which
// options are set (an option set to "" is set: the user asked for nothing); a format
// prints their values exactly, since show-options quotes and escapes them.
func Load(ctx context.Context, s tmux.Server) (Values, error) {
	sep := "\x1f" + strconv.FormatInt(time.Now().UnixNano(), 36) + "\x1f"
	fields := make([]string, len(All))
	for i, o := range All {
		fields[i] = "#{" + Prefix + o.Name + "}"
	}
	marker := "paneherd-options" + sep
	out, err := s.Run(ctx, nil, "show-options", "-g", ";",
		"display-message", "-p", tmux.LiteralArg(marker+strings.Join(fields, sep)))
	if err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	shown, printed, ok := strings.Cut(out, marker)
	if !ok {
		return nil, fmt.Errorf("options: unexpected tmux output %q", out)
	}
	return merge(setNames(shown), strings.Split(strings.TrimSuffix(printed, "\n"), sep)), nil
}

// setNames returns the paneherd options that show-options lists, i.e. that are set.
func setNames(shown string) map[string]bool {
	set := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(shown))
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), " ")
		if strings.HasPrefix(name, Prefix) {
			set[strings.TrimPrefix(name, Prefix)] = true
		}
	}
	return set
}

// merge takes the printed value of each set option and the default of the others.
func merge(set map[string]bool, values []string) Values {
	v := Defaults()
	for i, o := range All {
		if set[o.Name] && i < len(values) {
			v[o.Name] = values[i]
		}
	}
	return v
}

// StatusLine turns the options into rendering options for the status line.
func (v Values) StatusLine() statusline.Options {
	o := statusline.Options{Format: v.Get("format"), Styles: map[string]string{}, Icons: map[string]string{}}
	for _, st := range state.All {
		key := strings.ToLower(strings.ReplaceAll(string(st), "_", "-"))
		o.Styles[string(st)] = v.Get("style-" + key)
		o.Icons[string(st)] = v.Get("icon-" + key)
	}
	if v.Get("show") == "active" {
		o.Hide = idleShell
	}
	return o
}

// idleShell is a plain shell waiting at its prompt: the one badge a user with many
// shells open may not want to see.
func idleShell(p store.Pane) bool {
	return p.Pack == "shell" && p.State == string(state.Ready)
}

// Notify turns the options into the notifier's configuration; a malformed duration or
// number falls back to its default, and the error says which option to fix.
func (v Values) Notify() (notify.Config, error) {
	c := notify.Config{Enabled: map[notify.Event]bool{}, Backend: v.Get("notify-backend"), PerPaneW: time.Minute}
	for _, ev := range notify.Events {
		c.Enabled[ev] = v.Get("notify-"+string(ev)) == "on"
	}
	var errs []string
	c.Dedupe = v.duration("notify-dedupe", &errs)
	c.Burst = v.duration("notify-burst", &errs)
	c.FinishedMin = v.duration("notify-finished-min", &errs)
	limit, err := strconv.Atoi(v.Get("notify-pane-limit"))
	if err != nil || limit < 0 {
		errs = append(errs, fmt.Sprintf("%snotify-pane-limit %q is not a count", Prefix, v.Get("notify-pane-limit")))
		limit, _ = strconv.Atoi(Defaults().Get("notify-pane-limit"))
	}
	c.PerPane = limit
	c.Bell = v.Get("notify-bell") == "on"
	switch c.Backend {
	case "auto", "desktop", "tmux", "off":
	default:
		errs = append(errs, fmt.Sprintf("%snotify-backend %q is not auto, desktop, tmux or off", Prefix, c.Backend))
		c.Backend = "auto"
	}
	if len(errs) > 0 {
		return c, errors.New(strings.Join(errs, "; "))
	}
	return c, nil
}

// duration reads a duration option, or its default with a complaint.
func (v Values) duration(name string, errs *[]string) time.Duration {
	d, err := time.ParseDuration(v.Get(name))
	if err != nil || d < 0 {
		*errs = append(*errs, fmt.Sprintf("%s%s %q is not a duration", Prefix, name, v.Get(name)))
		d, _ = time.ParseDuration(Defaults().Get(name))
	}
	return d
}
