package notify

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// ExtraNames are the backends beyond the desktop and tmux messages, in the order doctor
// and `notify test` list them. Each is on when its own option is set (Config.wants), in
// addition to the desktop-or-tmux choice; @paneherd-notify-backend off silences them all.
var ExtraNames = []string{"terminal", "command", "webhook", "sound"}

// ExtraEnv is what the extra backends are built with besides the configuration.
type ExtraEnv struct {
	Server tmux.Server // the tmux server paneherd watches: its clients and their terminals
	Host   string      // this machine's name, for what leaves it
}

// Extra builds an extra backend from the configuration. A configuration it cannot work
// with is an error of one line that says what to fix.
type Extra func(cfg Config, env ExtraEnv) (Backend, error)

// extraBuilders builds each extra backend, by name (one of ExtraNames): one entry per
// backend, its file's function from the Config to the backend.
var extraBuilders = map[string]Extra{
	"command": func(c Config, e ExtraEnv) (Backend, error) {
		b, err := NewCommand(c.Command, c.CommandTimeout, e.Host)
		return orNil(b, err)
	},
	"terminal": func(c Config, e ExtraEnv) (Backend, error) {
		b, err := NewTerminal(e.Server, c.Terminal)
		return orNil(b, err)
	},
	"webhook": func(c Config, e ExtraEnv) (Backend, error) {
		b, err := NewWebhook(c.Webhook, c.WebhookFormat, e.Host)
		return orNil(b, err)
	},
	"sound": func(c Config, e ExtraEnv) (Backend, error) {
		b, err := NewSound(c.Sound, runtime.GOOS, e.Server)
		return orNil(b, err)
	},
}

// orNil is a constructor's backend as a Backend, or nil with its error: a typed value in
// an interface is never nil, and Extras must leave out what could not be built.
func orNil[B Backend](b B, err error) (Backend, error) {
	if err != nil {
		return nil, err
	}
	return b, nil
}

// wants reports whether the configuration turns the extra backend called name on.
func (c Config) wants(name string) bool {
	if c.Backend == "off" {
		return false
	}
	switch name {
	case "terminal":
		return c.Terminal != "" && c.Terminal != "off"
	case "command":
		return c.Command != ""
	case "webhook":
		return c.Webhook != ""
	case "sound":
		return c.Sound != "" && c.Sound != "off"
	}
	return false
}

// ConfigError is why an extra backend the configuration turns on is not used.
type ConfigError struct {
	Backend string
	Err     error
}

func (e *ConfigError) Error() string { return named(e.Backend, e.Err).Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// backendOf names the backend a ConfigError is about.
func backendOf(err error) string {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce.Backend
	}
	return ""
}

// Extras builds the extra backends cfg turns on, in the order of ExtraNames. One that
// cannot be built is left out, with a ConfigError saying why: the others work.
func Extras(cfg Config, env ExtraEnv) ([]Backend, []error) {
	var backends []Backend
	var problems []error
	for _, name := range ExtraNames {
		if !cfg.wants(name) {
			continue
		}
		b, err := extraBuilders[name](cfg, env)
		if err != nil {
			problems = append(problems, &ConfigError{name, err})
			continue
		}
		backends = append(backends, b)
	}
	return backends, problems
}

// Status is one extra backend as doctor tells of it: what it will do, or why it cannot.
type Status struct {
	Backend string
	Text    string // what it will do; "on" when it does not describe itself
	Err     error  // why it cannot: a ConfigError, or its own Describe's
}

// describeDeadline bounds one backend's Describe: doctor asks the daemon with 5 s to answer.
const describeDeadline = 2 * time.Second

// Describe is a Status per extra backend, in the order of ExtraNames: those built
// (backends) say what they will do, all at once; the others (problems, from Extras) why
// they are not used.
func Describe(ctx context.Context, backends []Backend, problems []error) []Status {
	type entry struct {
		b       Backend
		problem error
	}
	var entries []entry
	for _, name := range ExtraNames {
		for _, b := range backends {
			if b.Name() == name {
				entries = append(entries, entry{b: b})
			}
		}
		for _, p := range problems {
			if backendOf(p) == name {
				entries = append(entries, entry{problem: p})
			}
		}
	}
	out := make([]Status, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		if e.b == nil {
			out[i] = Status{Backend: backendOf(e.problem), Err: e.problem}
			continue
		}
		wg.Go(func() { out[i] = describe(ctx, e.b) })
	}
	wg.Wait()
	return out
}

func describe(ctx context.Context, b Backend) Status {
	d, ok := b.(Describer)
	if !ok {
		return Status{Backend: b.Name(), Text: "on"}
	}
	ctx, cancel := context.WithTimeout(ctx, describeDeadline)
	defer cancel()
	text, err := d.Describe(ctx)
	if err != nil {
		return Status{Backend: b.Name(), Err: named(b.Name(), err)}
	}
	return Status{Backend: b.Name(), Text: strings.TrimSpace(text)}
}

// Describe is Describe of the extra backends the notifier's configuration turns on.
func (n *Notifier) Describe(ctx context.Context) []Status {
	now := n.setup.Load()
	return Describe(ctx, now.extras, now.problems)
}
