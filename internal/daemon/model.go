package daemon

import (
	"context"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/live"
	"github.com/paneherd/paneherd/internal/llm"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/screen"
)

// The optional language-model reader (issue 17): packs first, agents' hooks second, a
// model third, for the screens neither settles. It never sits on the watcher's path: the
// watcher hands over an UNKNOWN screen, or one a hook disputed (Unsure), without waiting,
// one goroutine asks the model about screens that held still, and a good answer comes
// back through Watcher.Model. The notifier asks it too, for a dialog's or an error's
// words (explain). It never acts on a pane.

// modelAsk is a screen to read.
type modelAsk struct {
	pane   string
	screen screen.Screen // its text is made only when it is asked about
	hash   uint64
	at     time.Time // when it was first shown
}

// askAfter is how long a screen must hold still before the model is asked about it: a
// screen that keeps changing would spend the budget on screens already gone.
const askAfter = time.Second

// reader is the model's client, when @paneherd-llm is on and it can be asked (nil: off),
// and the latest screen of each pane waiting to be asked about.
type reader struct {
	client live.Value[*llm.Client]
	cfg    llm.Config // the client's, to keep it across a reload that changes nothing
	warned string     // the last warning logged, so a reload does not repeat it

	mu      sync.Mutex
	pending map[string]modelAsk // by pane: the latest only
	wake    chan struct{}
}

func newReader() *reader {
	return &reader{pending: map[string]modelAsk{}, wake: make(chan struct{}, 1)}
}

// unsure takes a screen the packs could not settle, in place of the pane's earlier one;
// shown is since when the pane shows it (zero: from now). Called under the watcher's
// lock: it never blocks, and with the reader off costs one atomic load.
func (r *reader) unsure(paneID string, sc screen.Screen, hash uint64, shown time.Time) {
	if r.client.Load() == nil {
		return
	}
	if shown.IsZero() {
		shown = time.Now()
	}
	r.mu.Lock()
	r.pending[paneID] = modelAsk{paneID, sc, hash, shown}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest pending screen that has held still for askAfter, or says how
// long until one has (0: none pending).
func (r *reader) next(now time.Time) (modelAsk, time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var best modelAsk
	wait := time.Duration(0)
	for _, a := range r.pending {
		if left := a.at.Add(askAfter).Sub(now); left > 0 {
			if wait == 0 || left < wait {
				wait = left
			}
			continue
		}
		if best.pane == "" || a.at.Before(best.at) {
			best = a
		}
	}
	if best.pane != "" {
		delete(r.pending, best.pane)
		return best, 0, true
	}
	return modelAsk{}, wait, false
}

// applyModel configures the reader from the options, at start and on reload. On with no
// model, or with no key for a remote API, is one log line and the reader stays off.
func (d *Daemon) applyModel(values options.Values) {
	if !options.LLM.In(values) {
		d.reader.client.Store(nil)
		return
	}
	cfg := llm.Config{URL: options.LLMURL.In(values), Model: options.LLMModel.In(values),
		PerMinute: options.LLMPerMinute.In(values), PerDay: options.LLMPerDay.In(values)}
	cfg.Key = llm.KeyFor(cfg.URL, os.Getenv, llm.EnvFile(os.Getenv))
	switch {
	case cfg.Model == "":
		d.warnModel("@paneherd-llm is on but @paneherd-llm-model is empty: no screen is sent to a model")
		return
	case cfg.Key == "" && !llm.Local(cfg.URL):
		d.warnModel("@paneherd-llm is on but no key was found for " + redacted(cfg.URL) + " (" + llm.KeyName(cfg.URL) +
			", in the tmux server's environment or " + llm.EnvFile(os.Getenv) + "): no screen is sent to a model")
		return
	}
	if d.reader.cfg == cfg && d.reader.client.Load() != nil {
		return // a reload that changed nothing keeps the budget used and the cache
	}
	d.reader.cfg, d.reader.warned = cfg, ""
	d.reader.client.Store(llm.New(cfg))
	d.log.Info().Str("url", redacted(cfg.URL)).Str("model", cfg.Model).Msg("screens no pack reads are read by a language model")
}

// warnModel turns the reader off with one warning, not repeated by each reload.
func (d *Daemon) warnModel(msg string) {
	d.reader.client.Store(nil)
	if d.reader.warned != msg {
		d.reader.warned = msg
		d.log.Warn().Msg(msg)
	}
}

// redacted is a URL as it may be logged: no password or query.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	u.RawQuery = ""
	return u.Redacted()
}

// readScreens asks the model about screens that held still, one at a time, until ctx
// ends; a screen the pane no longer shows is not asked about; an answer that is no help
// (an error, UNKNOWN) is logged and dropped: the pane keeps its pack's state.
func (d *Daemon) readScreens(ctx context.Context) {
	for {
		ask, wait, ok := d.reader.next(time.Now())
		if !ok {
			var timer <-chan time.Time
			if wait > 0 {
				timer = time.After(wait)
			}
			select {
			case <-ctx.Done():
				return
			case <-d.reader.wake:
			case <-timer:
			}
			continue
		}
		c := d.reader.client.Load()
		if c == nil || !d.w.Shows(ask.pane, ask.hash) {
			continue
		}
		ans, err := c.Read(ctx, ask.screen.Text())
		if err != nil {
			d.log.Debug().Err(err).Str("pane", ask.pane).Msg("model not asked, or no usable answer")
			continue
		}
		taken, err := d.w.Model(ask.pane, ask.hash, ans.State, ans.Summary, time.Now())
		if taken {
			d.observer.Wake() // a READY waits for the screen to settle: look then
		}
		d.log.Info().Str("pane", ask.pane).Str("state", string(ans.State)).Str("summary", ans.Summary).
			Strs("actions_needed", ans.ActionsNeeded).Bool("taken", taken).AnErr("error", err).Msg("model read a screen")
	}
}

// explain is the notifier's Explainer: the model's reading of the screen the pane shows,
// for a notification of a dialog or an error, when the model reads the same state (its
// words on another state would describe something else). ctx ends with the notifier.
func (d *Daemon) explain(ctx context.Context, x notify.Notification) (notify.Explanation, bool) {
	c := d.reader.client.Load()
	if c == nil {
		return notify.Explanation{}, false
	}
	sc, shown := d.w.Screen(x.PaneID)
	if !shown {
		return notify.Explanation{}, false
	}
	ans, err := c.Read(ctx, sc.Text())
	if err != nil {
		d.log.Debug().Err(err).Str("pane", x.PaneID).Msg("model not asked, or no usable answer, for a notification")
		return notify.Explanation{}, false
	}
	if string(ans.State) != x.State {
		d.log.Info().Str("pane", x.PaneID).Str("state", x.State).Str("model_state", string(ans.State)).
			Msg("the model reads another state: the notification keeps the pack's words")
		return notify.Explanation{}, false
	}
	return notify.Explanation{Summary: ans.Summary, Actions: ans.ActionsNeeded}, true
}
