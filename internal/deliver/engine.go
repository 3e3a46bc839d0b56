package deliver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/live"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/ratelimit"
	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// Config are the timings and limits of delivery (@paneherd-send-... options).
type Config struct {
	Quiet      time.Duration   // a person's last keystroke in the session must be this old
	Recheck    time.Duration   // while deferring, look again this often
	DeferMax   time.Duration   // give up deferring after this long: DEFER_TIMEOUT
	AckTimeout time.Duration   // how long a sent prompt has to be acknowledged
	Backoff    []time.Duration // pause before each retry; its length is the number of retries
	Verify     time.Duration   // how long an answered dialog has to go away
	RateLimit  int             // at most this many actions per pane ...
	RateWindow time.Duration   // ... within this window
}

// DefaultConfig is what the issue and the peers' complaints settled on.
var DefaultConfig = Config{Quiet: 20 * time.Second, Recheck: 5 * time.Second, DeferMax: 60 * time.Second,
	AckTimeout: 8 * time.Second, Backoff: []time.Duration{2 * time.Second, 4 * time.Second},
	Verify: 3 * time.Second, RateLimit: 10, RateWindow: time.Minute}

// Pane is what the daemon knows of a pane: its state and the pack reading it.
type Pane struct {
	ID, Name string
	State    state.State
	Pack     *packs.Pack
}

// Engine performs actions on the panes of one tmux server.
type Engine struct {
	Server tmux.Server
	Lookup func(paneID string) (Pane, bool)
	// Packs, if set, resolves a pack a person has just named with @paneherd-pack.
	Packs *packs.Set
	// Audit records an action; an error is logged with the action, which is not undone.
	Audit func(wire.Trigger) error
	// Phase, if set, is told how a send goes (a supervisor shows a worker triggering,
	// then awaiting its acknowledgement). It is called on the send's goroutine: it must
	// return at once, never block or call back into the engine.
	Phase func(paneID, triggerID string, p Phase)
	Log   zerolog.Logger

	cfg    live.Value[Config] // the timings: a reload never waits on a send
	mu     sync.Mutex         // guards recent and active
	recent ratelimit.Window   // pane -> its recent actions
	active map[string]bool    // pane -> an action is under way
	now    func() time.Time
	// life ends with Stop: sends stop waiting for their acknowledgement, none types.
	life context.Context
	stop context.CancelFunc
}

// Phase is how far a send has gone, as Engine.Phase is told.
type Phase string

// The phases of a send, in order; a send refused by its checks goes straight to done.
const (
	PhaseTriggering  Phase = "triggering"   // the checks passed; the prompt is about to be pasted
	PhaseAwaitingAck Phase = "awaiting_ack" // pasted and submitted; waiting for the acknowledgement
	PhaseDone        Phase = "done"         // the send ended, whatever its outcome
)

// phase tells Engine.Phase, if set.
func (e *Engine) phase(paneID, triggerID string, p Phase) {
	if e.Phase != nil {
		e.Phase(paneID, triggerID, p)
	}
}

// New returns an engine with the given timings.
func New(s tmux.Server, cfg Config) *Engine {
	life, stop := context.WithCancel(context.Background())
	e := &Engine{Server: s, Log: zerolog.Nop(), active: map[string]bool{}, now: time.Now, life: life, stop: stop}
	e.cfg.Store(cfg)
	return e
}

// Stop is the daemon stopping: a send that has typed its prompt submits it, looks once
// more and ends DELIVERED or INTERRUPTED instead of waiting out its acknowledgement, and
// no send types anything after.
func (e *Engine) Stop() { e.stop() }

// finishing is the ctx a send goes on with once it types its prompt: its asker hanging
// up (ctx ending) no longer ends it, since a prompt left in the input box would wait for
// whoever presses Enter next and the audit would not say what happened; Stop does.
func (e *Engine) finishing(ctx context.Context) (context.Context, context.CancelFunc) {
	own, cancel := context.WithCancel(context.WithoutCancel(ctx))
	unhook := context.AfterFunc(e.life, cancel)
	return own, func() {
		unhook()
		cancel()
	}
}

// SetConfig changes the timings (options reloaded).
func (e *Engine) SetConfig(c Config) { e.cfg.Store(c) }

func (e *Engine) config() Config { return e.cfg.Load() }

// admit applies the per-pane rate limit and lets one action at a time at a pane. The
// returned func ends the action.
func (e *Engine) admit(paneID string) (func(), bool) {
	cfg := e.config()
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	if e.active[paneID] || !e.recent.Allow(paneID, now, cfg.RateLimit, cfg.RateWindow) {
		return nil, false
	}
	e.active[paneID] = true
	return func() {
		e.mu.Lock()
		delete(e.active, paneID)
		e.mu.Unlock()
	}, true
}

// check looks at the pane right now and says why nothing may be sent, if anything.
func (e *Engine) check(ctx context.Context, paneID string) (Pane, paneNow, *wire.Result) {
	p, ok := e.Lookup(paneID)
	if !ok {
		return p, paneNow{}, fail(outcome.TargetNotFound, "paneherd does not watch pane %s", paneID)
	}
	now, err := inspect(ctx, e.Server, paneID)
	if err != nil {
		return p, now, fail(outcome.SendKeysError, "%v", err)
	}
	p.Pack = e.packNow(p.Pack, now.pack)
	return p, now, refusal(now, paneID)
}

// packNow is the pack to read the pane with now: the one a person has just named with
// @paneherd-pack, which the watcher may not have looked at yet, else the watcher's.
func (e *Engine) packNow(watcher *packs.Pack, named string) *packs.Pack {
	if named == "" || e.Packs == nil || (watcher != nil && watcher.Name == named) {
		return watcher
	}
	if p, err := e.Packs.Get(named); err == nil {
		return p
	}
	return watcher // a name of no pack: the watcher logs it and detects instead
}

// rateLimited is the refusal of an action admit did not let through.
var rateLimited = fail(outcome.TriggerRateLimited, "too many actions on this pane lately, or one is under way")

func fail(o outcome.Outcome, format string, args ...any) *wire.Result {
	return &wire.Result{Outcome: o, Detail: fmt.Sprintf(format, args...)}
}

// record audits an action and returns its result, its detail masked (secrets.Mask): it
// may quote the screen (the dialog answered), and it is stored and logged.
func (e *Engine) record(t wire.Trigger, r wire.Result) wire.Result {
	r.Detail = secrets.Mask(r.Detail)
	t.ID, t.PaneID, t.Outcome, t.Detail, t.Retries, t.Finished = r.ID, r.PaneID, string(r.Outcome), r.Detail, r.Retries, time.Now()
	t.Typed = r.Typed
	if e.Audit != nil {
		if err := e.Audit(t); err != nil {
			e.Log.Error().Err(err).Str("id", r.ID).Msg("audit not recorded")
			r.AuditError = err.Error()
		}
	}
	e.Log.Info().Str("id", r.ID).Str("kind", t.Kind).Str("pane", r.PaneID).Str("outcome", string(r.Outcome)).
		Str("detail", r.Detail).Int("retries", r.Retries).Bool("forced", t.Forced).Msg("trigger")
	return r
}

// Digest is the SHA-256 of a prompt as audited: the audit keeps this, never the text.
func Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Sleep waits d (nothing when d <= 0) or until ctx ends, and says which: ctx's error
// when it ended first. The supervisor paces its own looks with it too.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
