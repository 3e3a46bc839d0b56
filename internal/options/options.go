// Package options declares every tmux option paneherd reads, each once, with its default,
// and reads them all from tmux in one call. The user's value always wins; the defaults
// live here and nowhere else, and docs/options.md's table is written from them.
package options

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/statusline"
)

// Values are the options as set in tmux, with defaults for the rest and for any value
// that is not valid; Problems says which, so the user can be told.
type Values struct {
	m        map[string]string
	Problems []string
}

// Defaults returns every option at its default.
func Defaults() Values {
	v := Values{m: make(map[string]string, len(All))}
	for _, o := range All {
		v.m[o.Name] = o.Default
	}
	return v
}

// Get returns an option's value; asking for an undeclared option is a bug.
func (v Values) Get(name string) string {
	val, ok := v.m[name]
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
		return Values{}, fmt.Errorf("options: %w", err)
	}
	shown, printed, ok := strings.Cut(out, marker)
	if !ok && tmux.Sanitised(out, sep) {
		return Values{}, fmt.Errorf("options: %w", tmux.ErrSanitised)
	}
	if !ok {
		return Values{}, fmt.Errorf("options: unexpected tmux output %q", out)
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
		if !set[o.Name] || i >= len(values) {
			continue
		}
		if err := o.check(values[i]); err != nil {
			v.Problems = append(v.Problems, fmt.Sprintf("%s%s %q %v; using %q", Prefix, o.Name, values[i], err, o.Default))
			continue
		}
		v.m[o.Name] = values[i]
	}
	return v
}

// check says what is wrong with a value for the option, if anything.
func (o Option) check(value string) error {
	switch o.Kind {
	case enum:
		for _, a := range o.Allowed {
			if value == a {
				return nil
			}
		}
		return fmt.Errorf("is not one of %s", strings.Join(o.Allowed, ", "))
	case duration:
		if d, err := time.ParseDuration(value); err != nil || d < 0 {
			return errors.New("is not a duration (like 1s or 500ms)")
		}
	case count:
		if n, err := strconv.Atoi(value); err != nil || n < 0 {
			return errors.New("is not a count")
		}
	case positive:
		if n, err := strconv.Atoi(value); err != nil || n < 1 {
			return errors.New("is not a positive whole number")
		}
	case hostList:
		return checkHosts(value)
	}
	return nil
}

// checkHosts refuses a host that ssh would read as an option ("-oProxyCommand=…") or
// that holds a character no destination has: the names go on ssh's command line.
func checkHosts(value string) error {
	for _, h := range strings.Fields(value) {
		if strings.HasPrefix(h, "-") || strings.ContainsFunc(h, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return fmt.Errorf("has %q, which is no SSH destination", h)
		}
	}
	return nil
}

// Hosts is the other machines whose panes the bar shows (@paneherd-hosts).
func (v Values) Hosts() []string { return strings.Fields(v.Get("hosts")) }

// StatusLine turns the options into rendering options for the status line.
func (v Values) StatusLine() statusline.Options {
	o := statusline.Options{Format: v.Get("format"), Styles: map[string]string{}, Icons: map[string]string{},
		NameMax: v.Int("name-max"), Show: v.Get("show"), Layout: v.Get("layout")}
	for _, st := range state.All {
		key := strings.ToLower(strings.ReplaceAll(string(st), "_", "-"))
		o.Styles[string(st)] = v.Get("style-" + key)
		o.Icons[string(st)] = v.Get("icon-" + key)
	}
	return o
}

// Notify turns the options into the notifier's configuration.
func (v Values) Notify() notify.Config {
	c := notify.Config{Enabled: map[notify.Event]bool{}, Backend: v.Get("notify-backend"), PerPaneW: time.Minute,
		Bell: v.Get("notify-bell") == "on"}
	for _, ev := range notify.Events {
		c.Enabled[ev] = v.Get("notify-"+string(ev)) == "on"
	}
	c.Dedupe = v.Duration("notify-dedupe")
	c.Burst = v.Duration("notify-burst")
	c.FinishedMin = v.Duration("notify-finished-min")
	c.PerPane = v.Int("notify-pane-limit")
	c.Terminal = v.Get("notify-terminal")
	c.Command = v.Get("notify-command")
	c.CommandTimeout = v.Duration("notify-command-timeout")
	c.Webhook = v.Get("notify-webhook")
	c.WebhookFormat = v.Get("notify-webhook-format")
	c.Sound = v.Get("notify-sound")
	if v.Get("llm") == "on" { // with no model, a notification has nothing to wait for
		c.ExplainWait = v.Duration("llm-notify-wait")
	}
	return c
}

// Duration reads a duration option; Load has checked it.
func (v Values) Duration(name string) time.Duration {
	d, _ := time.ParseDuration(v.Get(name))
	return d
}

// Int reads a count or a positive whole number option; Load has checked it.
func (v Values) Int(name string) int {
	n, _ := strconv.Atoi(v.Get(name))
	return n
}

// Push reports whether the daemon pushes the status line into @paneherd_status.
func (v Values) Push() bool { return v.Get("status-mode") == "push" }

// Delivery turns the options into the timings of send, approve and deny.
func (v Values) Delivery() deliver.Config {
	c := deliver.DefaultConfig
	c.Quiet = v.Duration("send-quiet")
	c.Recheck = max(v.Duration("send-recheck"), 100*time.Millisecond)
	c.DeferMax = v.Duration("send-defer-max")
	c.AckTimeout = v.Duration("send-ack-timeout")
	c.RateLimit = v.Int("send-limit")
	return c
}
