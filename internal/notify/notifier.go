package notify

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/live"
	"github.com/paneherd/paneherd/internal/ratelimit"
)

// Config is the user's say over notifications (@paneherd-notify-... options).
type Config struct {
	Enabled map[Event]bool
	// Backend is the desktop-or-tmux choice: auto (desktop, else tmux), desktop, tmux, or
	// off, which silences the extra backends too.
	Backend  string
	Dedupe   time.Duration // the same pane and state notify once per this window
	PerPane  int           // at most this many notifications of one pane ...
	PerPaneW time.Duration // ... within this window
	Burst    time.Duration // changes this close together become one notification
	Bell     bool          // tmux notifications ring the clients' terminal bell too
	// FinishedMin: a BUSY -> READY shorter than this is not news (a quick shell command,
	// a one-line answer the person watched arrive).
	FinishedMin time.Duration
	// ExplainWait: a notification of a dialog or an error waits at most this long for the
	// Explainer's words (0: it does not ask).
	ExplainWait time.Duration
	// ContextMark: a pane whose context passes this percent of its model's window is
	// told of, once per passing (0: never; Enabled[ContextFull] says the same).
	ContextMark int

	// The extra backends (extras.go), each on when its own option is set.
	Terminal       string        // auto, osc9, osc777, osc99; off
	Command        string        // 'PROGRAM ARGS'; "": off
	CommandTimeout time.Duration // the command backend ends its program after this
	Webhook        string        // a URL; "": off
	WebhookFormat  string        // json, ntfy, slack
	Sound          string        // on, a sound file; off
}

// Notifier applies the policy once per event, in the watcher's goroutine and its own, then
// hands what passed to every backend on, each in a lane of its own (fanout.go): a slow
// desktop, tmux call or webhook never holds up the watcher or another backend.
type Notifier struct {
	Desktop Backend
	Tmux    Backend
	// Env is what SetConfig builds the extra backends with.
	Env ExtraEnv
	// Clients lists the attached clients, to skip the pane a person is looking at.
	Clients func(ctx context.Context) ([]Client, error)
	// Record keeps what was sent, once every backend has had its say.
	Record func(Sent)
	// Dropped, if set, is told each time a backend's full queue drops a notification (the
	// daemon counts them in its metrics). It must not block.
	Dropped func(backend string)
	// Explain, if set, words a dialog's or an error's notification from a model's reading
	// of the pane's screen (explain.go).
	Explain Explainer
	Log     zerolog.Logger
	Now     func() time.Time

	setup    live.Value[setup]    // the configuration: a reload never waits on the rules
	mu       sync.Mutex           // guards the rules' memory below
	lastSent map[string]time.Time // pane|state|body -> last notification, dialogs aside
	dialogs  map[string]dialog    // pane -> its last notified dialog
	// contextWarned: pane -> its context passed the mark and was told of (Context). An
	// entry a pane leaves goes when its context is seen below the mark; the panes of a
	// daemon's life bound them.
	contextWarned map[string]bool
	recent        ratelimit.Window // pane -> its notifications within PerPaneW
	forgetAt      time.Time        // when forget next looks for entries no window needs
	in            chan Notification
	// sendDeadline bounds one send through one backend (the command backend's may be
	// longer: Config.deadline).
	sendDeadline time.Duration
	// explaining counts the Explain calls under way: Run returns only once they have
	// (their context ends with Run's), so none outlives the notifier.
	explaining sync.WaitGroup
}

// New returns a notifier with cfg and no extra backend (SetConfig builds those); call Run
// to start it.
func New(desktop, tmuxBackend Backend, cfg Config) *Notifier {
	n := &Notifier{Desktop: desktop, Tmux: tmuxBackend, Now: time.Now, Log: zerolog.Nop(),
		lastSent: map[string]time.Time{}, dialogs: map[string]dialog{}, in: make(chan Notification, 256),
		sendDeadline: sendDeadline}
	n.setup.Store(setup{cfg: cfg})
	return n
}

// setup is the configuration and what SetConfig built from it, replaced together.
type setup struct {
	cfg      Config
	extras   []Backend // the extra backends cfg turns on (Extras)
	problems []error   // why the others cfg turns on are not there (ConfigError)
}

// SetConfig replaces the configuration (options reloaded) and builds the extra backends
// it turns on, with Env. One that cannot be built is one line in the log, and the others
// work without it.
func (n *Notifier) SetConfig(c Config) {
	extras, problems := Extras(c, n.Env)
	for _, p := range problems {
		n.Log.Warn().Err(p).Msg("notification backend not used; the others notify")
	}
	n.setup.Store(setup{c, extras, problems})
}

func (n *Notifier) config() Config { return n.setup.Load().cfg }

// Offer hands the notifier a notification; it decides whether it goes out. Never blocks.
func (n *Notifier) Offer(x Notification) {
	if !n.admit(x) {
		return
	}
	select {
	case n.in <- x:
	default:
		n.Log.Warn().Str("pane", x.PaneID).Msg("notification queue full; dropped")
	}
}

// Run delivers until ctx ends: the first notification opens a burst window, everything
// arriving within it goes out together, to every backend's lane. It returns once the
// lanes have ended and every notification admitted is recorded, those it had no time
// for as not sent.
func (n *Notifier) Run(ctx context.Context) {
	out := n.newFanout(ctx)
	defer out.close()
	defer n.explaining.Wait()
	for {
		var burst []Notification
		select {
		case <-ctx.Done():
			n.abandon(nil)
			return
		case x := <-n.in:
			burst = append(burst, x)
		}
		timer := time.NewTimer(n.config().Burst)
	gather:
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				n.abandon(burst)
				return
			case x := <-n.in:
				burst = append(burst, x)
			case <-timer.C:
				break gather
			}
		}
		n.deliverBurst(ctx, out, burst)
	}
}

// deliverBurst drops what a person is already looking at, then hands one notification
// for the rest to every backend: itself when alone, a summary when several. Each
// notification of the burst is recorded with what became of that one.
func (n *Notifier) deliverBurst(ctx context.Context, out *fanout, burst []Notification) {
	burst = n.unwatched(ctx, burst)
	if len(burst) == 0 {
		return
	}
	n.explain(ctx, burst)
	one := burst[0]
	if len(burst) > 1 {
		one = summarize(burst)
	}
	out.send(one, func(results []Result) {
		n.logSent(Sent{Notification: one, Results: results})
		if n.Record == nil {
			return
		}
		for _, x := range burst {
			n.Record(Sent{Notification: x, Results: results})
		}
	})
}

// abandon records the burst being gathered and what waits to be taken as not sent by
// any backend, paneherd stopping: the history says so, and a daemon started next
// recalls none of them as sent.
func (n *Notifier) abandon(burst []Notification) {
	for waiting := true; waiting; {
		select {
		case x := <-n.in:
			burst = append(burst, x)
		default:
			waiting = false
		}
	}
	if len(burst) == 0 {
		return
	}
	n.Log.Warn().Int("notifications", len(burst)).Msg("not notified: paneherd stopped first")
	if n.Record == nil {
		return
	}
	routes, _ := n.routes()
	var results []Result
	for _, r := range routes {
		results = append(results, Result{Backend: r.name, Err: named(r.name, ErrStopped)})
	}
	for _, x := range burst {
		n.Record(Sent{Notification: x, Results: results})
	}
}

// unwatched drops notifications of panes shown by a focused client.
func (n *Notifier) unwatched(ctx context.Context, burst []Notification) []Notification {
	if n.Clients == nil {
		return burst
	}
	clients, err := n.Clients(ctx)
	if err != nil {
		return burst
	}
	watched := Watched(clients, n.Now())
	var out []Notification
	for _, x := range burst {
		if watched[x.PaneID] {
			n.Log.Debug().Str("pane", x.PaneID).Str("event", string(x.Event)).Msg("not notified: a person is looking at it")
			continue
		}
		out = append(out, x)
	}
	return out
}

// summarize folds several notifications into one: the title counts them, the body has
// a line per worker, its event is the most urgent one's (mostUrgent), and it is critical
// if any of them is.
func summarize(burst []Notification) Notification {
	sort.SliceStable(burst, func(i, j int) bool { return burst[i].Critical && !burst[j].Critical })
	top := mostUrgent(burst)
	s := Notification{At: burst[0].At, Event: top.Event, State: top.State}
	var lines []string
	for _, x := range burst {
		s.Critical = s.Critical || x.Critical
		lines = append(lines, fmt.Sprintf("%s (%s)", x.Title, x.Target))
	}
	s.Title = fmt.Sprintf("%d workers changed", len(burst))
	if s.Critical {
		s.Title = fmt.Sprintf("%d workers changed; some need you", len(burst))
	}
	s.Body = strings.Join(lines, "\n")
	return s
}

// urgency orders the events from the most urgent: a summary is the event of its most
// urgent notification, since the backends act on it (the sound played, ntfy's tag).
var urgency = []Event{NeedsConfirmation, Failed, Supervisor, Finished, Stalled, Exited}

// mostUrgent is the first notification of the burst whose event ranks highest in urgency.
func mostUrgent(burst []Notification) Notification {
	rank := func(e Event) int {
		if i := slices.Index(urgency, e); i >= 0 {
			return i
		}
		return len(urgency)
	}
	top := burst[0]
	for _, x := range burst[1:] {
		if rank(x.Event) < rank(top.Event) {
			top = x
		}
	}
	return top
}

// Bell reports whether tmux notifications also ring the terminal bell.
func (n *Notifier) Bell() bool { return n.config().Bell }
