package notify

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/ratelimit"
	"github.com/paneherd/paneherd/store"
)

// Config is the user's say over notifications (@paneherd-notify-... options).
type Config struct {
	Enabled  map[Event]bool
	Backend  string        // auto (desktop, else tmux), desktop, tmux, or off
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
}

// Sent is what the notifier did with a notification, for the history.
type Sent struct {
	Notification
	Backend string // the backend that delivered it, "" when none could
	Err     error  // the last backend's failure
}

// Notifier applies the policy and delivers in its own goroutine, so a slow desktop or
// tmux call never holds up the watcher.
type Notifier struct {
	Desktop Backend
	Tmux    Backend
	// Clients lists the attached clients, to skip the pane a person is looking at.
	Clients func(ctx context.Context) ([]Client, error)
	// Record keeps what was sent.
	Record func(Sent)
	// Explain, if set, words a dialog's or an error's notification from a model's reading
	// of the pane's screen (explain.go).
	Explain Explainer
	Log     zerolog.Logger
	Now     func() time.Time

	mu       sync.Mutex
	cfg      Config
	lastSent map[string]time.Time // pane|state|body -> last notification
	recent   ratelimit.Window     // pane -> its notifications within PerPaneW
	forgetAt time.Time            // when forget next looks for entries no window needs
	in       chan Notification
	// explaining counts the Explain calls under way: Run returns only once they have
	// (their context ends with Run's), so none outlives the notifier.
	explaining sync.WaitGroup
}

// New returns a notifier; call Run to start it.
func New(desktop, tmuxBackend Backend, cfg Config) *Notifier {
	return &Notifier{Desktop: desktop, Tmux: tmuxBackend, cfg: cfg, Now: time.Now, Log: zerolog.Nop(),
		lastSent: map[string]time.Time{}, in: make(chan Notification, 256)}
}

// SetConfig replaces the configuration (options reloaded).
func (n *Notifier) SetConfig(c Config) {
	n.mu.Lock()
	n.cfg = c
	n.mu.Unlock()
}

func (n *Notifier) config() Config {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cfg
}

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

// admit applies the switches, the dedupe window and the per-pane rate limit.
func (n *Notifier) admit(x Notification) bool {
	cfg := n.config()
	if cfg.Backend == "off" || !cfg.Enabled[x.Event] {
		return false
	}
	if x.Event == Finished && x.Lasted < cfg.FinishedMin {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	now := x.At
	n.forget(now, cfg)
	key := dedupeKey(x.PaneID, x.State, x.Body)
	if last, ok := n.lastSent[key]; ok && now.Sub(last) < cfg.Dedupe {
		return false
	}
	// The supervisor's word (a worker given up on, frozen past its nudges) comes once per
	// such event, right after the pane's own deaths and stalls have used its budget.
	if x.Event != Supervisor && !n.recent.Allow(x.PaneID, now, cfg.PerPane, cfg.PerPaneW) {
		return false
	}
	n.lastSent[key] = now
	return true
}

// dedupeKey is what makes two notifications the same one. A different question from the
// same pane is news: the summary, in the body, is part of the key.
func dedupeKey(paneID, state, body string) string { return paneID + "|" + state + "|" + body }

// Recall takes the notifications an earlier daemon sent (the store's history, oldest
// first) as if this notifier had sent them, within the dedupe window and the per-pane
// limit: a daemon that is restarted must not repeat what the last one sent moments ago.
func (n *Notifier) Recall(past []store.Notification) {
	cfg := n.config()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range past {
		if p.PaneID == "" {
			continue // a test notification, which nothing deduplicates
		}
		n.lastSent[dedupeKey(p.PaneID, p.State, p.Body)] = p.At
		if Event(p.Event) != Supervisor {
			n.recent.Allow(p.PaneID, p.At, cfg.PerPane, cfg.PerPaneW)
		}
	}
}

// forget drops the dedupe keys no window needs any more: panes come and go for the
// daemon's whole life, and each leaves a key per state and summary it notified. A sweep
// once per window keeps at most two windows' worth, at a cost per notification that
// stays constant on average (the rate limit's Window forgets the same way by itself).
func (n *Notifier) forget(now time.Time, cfg Config) {
	if now.Before(n.forgetAt) {
		return
	}
	for key, last := range n.lastSent {
		if now.Sub(last) >= cfg.Dedupe {
			delete(n.lastSent, key)
		}
	}
	n.forgetAt = now.Add(cfg.Dedupe)
}

// Run delivers until ctx ends: the first notification opens a burst window, everything
// arriving within it goes out together.
func (n *Notifier) Run(ctx context.Context) {
	defer n.explaining.Wait()
	for {
		var burst []Notification
		select {
		case <-ctx.Done():
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
				return
			case x := <-n.in:
				burst = append(burst, x)
			case <-timer.C:
				break gather
			}
		}
		n.deliverBurst(ctx, burst)
	}
}

// deliverBurst drops what a person is already looking at, then sends one notification
// for the rest: itself when alone, a summary when several.
func (n *Notifier) deliverBurst(ctx context.Context, burst []Notification) {
	burst = n.unwatched(ctx, burst)
	if len(burst) == 0 {
		return
	}
	n.explain(ctx, burst)
	one := burst[0]
	if len(burst) > 1 {
		one = summarize(burst)
	}
	sent := n.Deliver(ctx, one)
	for _, x := range burst {
		if n.Record != nil {
			n.Record(Sent{Notification: x, Backend: sent.Backend, Err: sent.Err})
		}
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

// Deliver sends one notification through the configured backends: the desktop first
// (auto, desktop), tmux when the desktop cannot (auto) or when asked for (tmux).
func (n *Notifier) Deliver(ctx context.Context, x Notification) Sent {
	var errs []string
	for _, b := range n.backends() {
		err := b.Send(ctx, x)
		if err == nil {
			n.Log.Info().Str("pane", x.PaneID).Str("event", string(x.Event)).Str("backend", b.Name()).Msg("notified")
			return Sent{Notification: x, Backend: b.Name()}
		}
		errs = append(errs, err.Error())
	}
	err := errors.New(strings.Join(errs, "; "))
	if len(errs) == 0 {
		err = errors.New("notifications are off (@paneherd-notify-backend off)")
	}
	n.Log.Warn().Str("pane", x.PaneID).Err(err).Msg("notification not delivered")
	return Sent{Notification: x, Err: err}
}

func (n *Notifier) backends() []Backend {
	switch n.config().Backend {
	case "desktop":
		return []Backend{n.Desktop}
	case "tmux":
		return []Backend{n.Tmux}
	case "off":
		return nil
	}
	return []Backend{n.Desktop, n.Tmux}
}

// summarize folds several notifications into one: the title counts them, the body has
// a line per worker, and it is critical if any of them is.
func summarize(burst []Notification) Notification {
	sort.SliceStable(burst, func(i, j int) bool { return burst[i].Critical && !burst[j].Critical })
	s := Notification{At: burst[0].At, Event: burst[0].Event, State: burst[0].State}
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

// Bell reports whether tmux notifications also ring the terminal bell.
func (n *Notifier) Bell() bool { return n.config().Bell }
