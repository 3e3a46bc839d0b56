package daemon

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/policy"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
)

// rules applies the person's policy when a pane enters NEEDS_CONFIRMATION: on, with a
// policy file that loads, it answers through deliver.Auto (the engine's one answer
// path); otherwise, and whenever the policy asks, the person is told as without one.
type rules struct {
	auto    *deliver.Auto
	path    string
	watched func(paneID string) (wire.Pane, bool) // the pane as the watcher reads it now

	mu      sync.Mutex
	mode    string       // @paneherd-policy: off, on, dry-run
	file    *policy.File // nil: none, or it does not load
	limit   int          // @paneherd-policy-limit: automatic answers per pane per Window
	broken  string       // why the file does not load; "" when it does or there is none
	busy    map[string]bool
	stopped bool // stopRules began: no answer may start, or it could outlive the engine

	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func newRules(e *deliver.Engine, watched func(string) (wire.Pane, bool), getenv func(string) string) *rules {
	life, stop := context.WithCancel(context.Background())
	return &rules{auto: &deliver.Auto{Engine: e, Window: time.Minute}, watched: watched, path: policy.Path(getenv),
		busy: map[string]bool{}, life: life, stop: stop}
}

// applyPolicy reads the option and the file again (start, reload). A file that does not
// load is one clear line in the log, and nothing is answered automatically.
func (d *Daemon) applyPolicy(values options.Values) {
	r := d.rules
	mode := options.Policy.In(values)
	var file *policy.File
	var broken string
	if mode != "off" && r.path != "" {
		f, err := policy.Load(r.path)
		switch {
		case err == nil:
			file = f
		case !errors.Is(err, policy.ErrNone):
			broken = err.Error()
		}
	}
	r.mu.Lock()
	r.limit = options.PolicyLimit.In(values)
	changed := broken != r.broken
	r.mode, r.file, r.broken = mode, file, broken
	r.mu.Unlock()
	if broken != "" && changed {
		d.log.Error().Str("policy", broken).Msg("policy file not loaded: nothing is answered automatically until it is fixed (paneherd policy check)")
	}
}

// transition is where the watcher's move of a pane to NEEDS_CONFIRMATION meets the
// policy: taken (answered in the background, the person told after) or not.
func (d *Daemon) transition(before wire.Pane, tr wire.Transition) bool {
	r := d.rules
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil || r.mode == "off" || r.busy[tr.PaneID] || r.stopped {
		return false
	}
	r.busy[tr.PaneID] = true
	run := deliver.Rules{File: r.file, Limit: r.limit, DryRun: r.mode == "dry-run"}
	r.wg.Go(func() {
		defer func() { r.mu.Lock(); delete(r.busy, tr.PaneID); r.mu.Unlock() }()
		d.answerByRules(run, before, tr)
	})
	return true
}

// answerByRules answers the pane's dialog by the policy, and the next one it shows at
// once after an answer, and tells the person of each: quietly of an answer, as without a
// policy when they must answer it themselves. The rate limit of automatic answers (run's
// Limit) ends a dialog that keeps coming back: past it, the person is asked.
func (d *Daemon) answerByRules(run deliver.Rules, before wire.Pane, tr wire.Transition) {
	for d.answerOnce(run, before, tr) {
		rec, ok := d.rules.nextDialog(tr.PaneID)
		if !ok {
			return
		}
		before = rec
		tr = wire.Transition{PaneID: rec.ID, At: time.Now(), From: rec.State, To: rec.State, Rule: rec.Rule, Summary: rec.Summary}
	}
}

// answerOnce answers one dialog and tells the person; it reports whether the dialog was
// answered (pressed, and gone).
func (d *Daemon) answerOnce(run deliver.Rules, before wire.Pane, tr wire.Transition) bool {
	id := "policy-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	got := d.rules.auto.Apply(d.rules.life, run, policy.PaneOf(before, d.sup.Workers()), id)
	d.log.Info().Str("pane", tr.PaneID).Str("action", got.Decision.Action).Str("rule", got.Decision.Rule).
		Str("why", got.Decision.Why).Str("outcome", string(got.Result.Outcome)).Bool("dry_run", run.DryRun).Msg("policy")
	if got.Asked() {
		d.notifier.Transition(before, tr)
		return false
	}
	d.notifier.Offer(notify.FromPolicy(before, got.Decision.Action, got.Decision.Rule, got.Summary, time.Now()))
	return true
}

// nextDialogWait bounds the wait for a pane to leave the dialog just answered. The
// watcher holds a pane's READY after an answered dialog for its settle time (about a
// second), so a pane still NEEDS_CONFIRMATION after this shows a next dialog, drawn with
// no frame in between: no transition will bring it.
const nextDialogWait = 3 * time.Second

// nextDialog waits for the watcher to read the pane as no longer NEEDS_CONFIRMATION, and
// returns its record if it still does after nextDialogWait.
func (r *rules) nextDialog(paneID string) (wire.Pane, bool) {
	deadline := time.Now().Add(nextDialogWait)
	for {
		rec, ok := r.watched(paneID)
		if !ok || rec.State != string(state.NeedsConfirmation) {
			return wire.Pane{}, false
		}
		if !time.Now().Before(deadline) {
			return rec, true
		}
		if deliver.Sleep(r.life, 100*time.Millisecond) != nil {
			return wire.Pane{}, false
		}
	}
}

// stopRules ends the answers under way (before the engine stops) and waits for them.
// stopped is set under the lock transition holds, so no answer starts once Wait has.
func (d *Daemon) stopRules() {
	r := d.rules
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.stop()
	r.wg.Wait()
}
