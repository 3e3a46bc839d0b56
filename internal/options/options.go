// Package options declares every tmux option paneherd reads, each once, with its default,
// and reads them all from tmux in one call. The user's value always wins; the defaults
// live here and nowhere else, and docs/options.md's table is written from them.
package options

import (
	"bufio"
	"context"
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

// get returns an option's value; Values not made by Defaults or Load are a bug.
func (v Values) get(name string) string {
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

// StatusLine turns the options into rendering options for the status line.
func (v Values) StatusLine() statusline.Options {
	o := statusline.Options{Format: Format.In(v), Styles: map[string]string{}, Icons: map[string]string{},
		NameMax: NameMax.In(v), Show: Show.In(v), Layout: Layout.In(v), ContextAt: ContextShow.In(v)}
	for _, st := range state.All {
		o.Styles[string(st)] = badges[st].style.In(v)
		o.Icons[string(st)] = badges[st].icon.In(v)
	}
	return o
}

// badges are the style and icon options of each state's badges.
var badges = map[state.State]struct{ style, icon Opt[string] }{
	state.Ready:             {StyleReady, IconReady},
	state.Busy:              {StyleBusy, IconBusy},
	state.NeedsConfirmation: {StyleNeedsConfirmation, IconNeedsConfirmation},
	state.Error:             {StyleError, IconError},
	state.Stalled:           {StyleStalled, IconStalled},
	state.Exited:            {StyleExited, IconExited},
	state.Offline:           {StyleOffline, IconOffline},
	state.Unknown:           {StyleUnknown, IconUnknown},
}

// Notify turns the options into the notifier's configuration.
func (v Values) Notify() notify.Config {
	c := notify.Config{Enabled: map[notify.Event]bool{}, Backend: NotifyBackend.In(v), PerPaneW: time.Minute,
		Bell: NotifyBell.In(v)}
	for _, ev := range notify.Events {
		c.Enabled[ev] = notifyOn[ev].In(v)
	}
	c.Dedupe = NotifyDedupe.In(v)
	c.Burst = NotifyBurst.In(v)
	c.FinishedMin = NotifyFinishedMin.In(v)
	c.PerPane = NotifyPaneLimit.In(v)
	c.Terminal = NotifyTerminal.In(v)
	c.Command = NotifyCommand.In(v)
	c.CommandTimeout = NotifyCommandTimeout.In(v)
	c.Webhook = NotifyWebhook.In(v)
	c.WebhookFormat = NotifyWebhookFormat.In(v)
	c.Sound = NotifySound.In(v)
	c.ContextMark = NotifyContext.In(v)
	c.Enabled[notify.ContextFull] = c.ContextMark > 0
	if LLM.In(v) { // with no model, a notification has nothing to wait for
		c.ExplainWait = LLMNotifyWait.In(v)
	}
	return c
}

// notifyOn are the options switching each event's notifications.
var notifyOn = map[notify.Event]Opt[bool]{
	notify.NeedsConfirmation: NotifyNeedsConfirmation,
	notify.Finished:          NotifyFinished,
	notify.Failed:            NotifyError,
	notify.Stalled:           NotifyStalled,
	notify.Exited:            NotifyExited,
	notify.Supervisor:        NotifySupervisor,
	notify.Policy:            NotifyPolicy,
}

// Push reports whether the daemon pushes the status line into @paneherd_status.
func (v Values) Push() bool { return StatusMode.In(v) == "push" }

// Delivery turns the options into the timings of send, approve and deny.
func (v Values) Delivery() deliver.Config {
	c := deliver.DefaultConfig
	c.Quiet = SendQuiet.In(v)
	c.Recheck = max(SendRecheck.In(v), 100*time.Millisecond)
	c.DeferMax = SendDeferMax.In(v)
	c.AckTimeout = SendAckTimeout.In(v)
	c.RateLimit = SendLimit.In(v)
	return c
}
