package daemon

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/store"
)

// queue holds prompts sent with --queue until their pane is READY. Its prompts live in
// the store, so they survive a restart of the daemon.
type queue struct {
	store  *store.Store
	engine *deliver.Engine
	pane   func(id string) (wire.Pane, bool) // the pane as the watcher sees it now
	log    zerolog.Logger
	ready  chan struct{} // a pane became READY: look now
	now    func() time.Time

	// mu makes "does a prompt wait for this pane?" and the drain taking a prompt out or
	// putting it back happen one at a time, so a new prompt never slips past an old one.
	mu      sync.Mutex
	sending string // the pane whose queued prompt the drain is delivering now
}

func newQueue(st *store.Store, e *deliver.Engine, pane func(id string) (wire.Pane, bool), log zerolog.Logger) *queue {
	return &queue{store: st, engine: e, pane: pane, log: log, ready: make(chan struct{}, 1), now: time.Now}
}

// rebind moves the prompts queued for a pane to the pane that replaced it (a managed
// worker restarted in its place): they go to the agent at its next READY, as they would
// have in the old pane.
func (q *queue) rebind(old, new string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items, err := q.store.Queue()
	if err != nil {
		q.log.Error().Err(err).Str("pane", old).Msg("queued prompts of a replaced pane not moved to its new one")
		return
	}
	for _, item := range items {
		if item.PaneID != old || !item.Taking.IsZero() {
			continue
		}
		item.PaneID = new
		if err := q.store.Enqueue(item); err != nil {
			q.log.Error().Err(err).Str("id", item.ID).Msg("queued prompt of a replaced pane not moved to its new one")
		}
	}
	q.poke()
}

// poke makes the queue look at once; it never blocks.
func (q *queue) poke() {
	select {
	case q.ready <- struct{}{}:
	default: // a look is pending already
	}
}

// send answers a send question: deliver now, or queue when asked and the pane is not
// READY or has older prompts waiting. A prompt the store could not keep is an error for
// the sender, never a QUEUED.
func (q *queue) send(ctx context.Context, ask wire.SendAsk) (wire.Result, error) {
	rec, ok := q.pane(ask.PaneID)
	if ask.Queue && ok {
		waiting, err := q.waiting(ask.PaneID)
		if err != nil {
			return wire.Result{}, fmt.Errorf("the prompt was not queued (nothing was sent): %w", err)
		}
		if waiting || rec.State != string(state.Ready) {
			return q.enqueue(ask, rec)
		}
	}
	res := q.engine.Send(ctx, ask.SendRequest)
	// Refused for now (it stopped being READY as we looked, a person is at it, another
	// send is under way): it waits like any queued prompt. Not when the asker has hung
	// up: that withdrew the prompt.
	if ask.Queue && ok && ctx.Err() == nil && keepQueued(res) {
		return q.enqueue(ask, rec)
	}
	return res, nil
}

// waiting reports whether a prompt for the pane is queued, or being delivered by the
// drain: a new one goes behind it.
func (q *queue) waiting(paneID string) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.sending == paneID {
		return true, nil
	}
	items, err := q.store.Queue()
	if err != nil {
		return false, err
	}
	for _, item := range items {
		if item.PaneID == paneID {
			return true, nil
		}
	}
	return false, nil
}

func (q *queue) enqueue(ask wire.SendAsk, rec wire.Pane) (wire.Result, error) {
	if bad := deliver.ShellRefused(ask.SendRequest, rec.Pack); bad != nil {
		return *bad, nil
	}
	text, err := deliver.Payload(ask.SendRequest)
	if err != nil {
		return wire.Result{ID: ask.ID, PaneID: ask.PaneID, Outcome: outcome.SendKeysError, Detail: err.Error()}, nil
	}
	at := q.now()
	item := wire.Queued{ID: ask.ID, PaneID: ask.PaneID, Text: ask.Text, At: at, Forced: ask.Force,
		Reason: ask.Reason, Envelope: ask.Envelope, AgentsOnly: ask.AgentsOnly, Server: rec.Server}
	if err := q.store.Enqueue(item); err != nil {
		q.log.Error().Err(err).Str("id", ask.ID).Str("pane", ask.PaneID).Msg("prompt not queued")
		return wire.Result{}, fmt.Errorf("the prompt was not queued (nothing was sent): %w", err)
	}
	res := wire.Result{ID: ask.ID, PaneID: ask.PaneID, Name: rec.Name, Outcome: outcome.Queued,
		Detail: "delivered when the pane is next READY"}
	if err := q.audit(wire.Trigger{ID: item.ID, Kind: "send", PaneID: item.PaneID, Name: rec.Name, At: at, Finished: at,
		SHA256: deliver.Digest(text), Length: len(text), Outcome: string(res.Outcome), Detail: res.Detail,
		Forced: item.Forced, Reason: item.Reason, Envelope: item.Envelope}); err != nil {
		res.AuditError = err.Error()
	}
	return res, nil
}

// sweepEvery is how often queued prompts are looked at besides READY transitions: a
// daemon that restarts finds its READY panes without a transition.
const sweepEvery = 3 * time.Second

// retryAfter spaces out attempts at a queued prompt whose pane keeps refusing (a person
// at it): each attempt is audited and counts against the pane's rate limit.
const retryAfter = 30 * time.Second

// run sends queued prompts to their panes once those are READY, until ctx ends.
func (q *queue) run(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.ready:
		case <-t.C:
		}
		q.drain(ctx)
	}
}

// drain sends each READY pane its oldest queued prompt, one at a time; the younger ones
// wait while it does, and while it waits to be tried again. A pane that is gone drops its
// prompts; one that is busy again, or has a person at it, keeps them for later. A prompt
// is marked taken before it is sent, leaves the queue once its outcome is audited, and
// goes back if the pane refused it for now: a daemon dying in between leaves it taken,
// and the next one settles it from the audit (settleTaken), never sending it twice.
func (q *queue) drain(ctx context.Context) {
	items, err := q.store.Queue()
	if err != nil {
		q.log.Error().Err(err).Msg("read the prompt queue")
		return
	}
	tried := map[string]bool{}
	for _, item := range items {
		if ctx.Err() != nil {
			return
		}
		if !item.Taking.IsZero() {
			q.settleTaken(item)
			continue
		}
		rec, ok := q.pane(item.PaneID)
		if ok && item.Server != "" && rec.Server != "" && rec.Server != item.Server {
			ok = false // the id now names a pane of a newer tmux server
		}
		if !ok {
			q.drop(item, "the pane is gone")
			continue
		}
		if tried[item.PaneID] {
			continue // an older prompt of the pane goes first
		}
		// Looked at: the pane's younger prompts wait, even if this one cannot go now.
		tried[item.PaneID] = true
		if rec.State == string(state.Ready) && q.now().Sub(item.LastTry) >= retryAfter {
			q.deliver(ctx, item)
		}
	}
}

// deliver sends one queued prompt, marked taken meanwhile, and takes it out of the queue
// once the send is audited; it goes back as it was when the pane refused it for now, or
// the daemon stopped before a key of it was typed.
func (q *queue) deliver(ctx context.Context, item wire.Queued) {
	if !q.take(item) {
		return
	}
	res := q.engine.Send(ctx, wire.SendRequest{ID: item.ID, PaneID: item.PaneID, Text: item.Text,
		Force: item.Forced, Reason: item.Reason, Envelope: item.Envelope, AgentsOnly: item.AgentsOnly})
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sending = ""
	stopping := ctx.Err() != nil && !res.Typed
	if stopping {
		// The engine reports the cut-short send as a failure (TARGET_NOT_FOUND,
		// SEND_KEYS_ERROR), but nothing reached the pane: it waits for the next daemon.
		q.log.Info().Str("id", item.ID).Msg("queued prompt kept: the daemon stopped before sending it")
	}
	if !stopping && !keepQueued(res) {
		if err := q.store.Dequeue(item.ID); err != nil {
			// Its outcome is audited: the next drain finds it so and takes it out.
			q.log.Error().Err(err).Str("id", item.ID).Msg("sent queued prompt not taken out of the queue")
		}
		return
	}
	q.putBack(item, res, q.now())
}

// putBack returns to the queue, no longer taken, a prompt whose send typed nothing. A
// send the pane refused for now counts as a try (LastTry, at), one cut short does not.
func (q *queue) putBack(item wire.Queued, res wire.Result, at time.Time) {
	item.Taking = time.Time{}
	if keepQueued(res) {
		item.LastTry = at
	}
	if err := q.store.Enqueue(item); err != nil {
		// Not lost: the store still holds it marked taken, and a later drain settles it
		// from its audit (settleTaken).
		q.log.Error().Err(err).Str("id", item.ID).Msg("queued prompt not put back yet: it stays marked taken")
	}
}

// take marks a prompt taken in the store before it is sent, and says so to send
// (waiting). A prompt that cannot be marked is not sent: a daemon dying during its send
// would leave it queued, to be sent again.
func (q *queue) take(item wire.Queued) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	item.Taking = q.now()
	if err := q.store.Enqueue(item); err != nil {
		q.log.Error().Err(err).Str("id", item.ID).Msg("queued prompt not marked as being sent; not sent")
		return false
	}
	q.sending = item.PaneID
	return true
}

// settleTaken settles a prompt a daemon took and did not settle: it died during the send
// or just after. A send whose outcome was audited and typed nothing (refused for now, cut
// short before the paste) goes back to the queue: trying it again cannot type it twice,
// and the next drain decides with the pane as it is then. Any other leaves the queue; one
// with no audited outcome (killed between the paste and the Enter, say) may sit in the
// pane, submitted or not, and is audited INTERRUPTED.
func (q *queue) settleTaken(item wire.Queued) {
	sent, audited, err := q.auditedSince(item.ID, item.PaneID, item.Taking)
	if err != nil {
		q.log.Error().Err(err).Str("id", item.ID).Msg("taken queued prompt left: its audit cannot be read")
		return
	}
	if audited && !sent.Typed {
		q.putBack(item, wire.Result{ID: sent.ID, PaneID: sent.PaneID, Outcome: outcome.Outcome(sent.Outcome)}, sent.Finished)
		return
	}
	if !audited {
		text, _ := deliver.Payload(wire.SendRequest{Text: item.Text, Envelope: item.Envelope})
		rec, _ := q.pane(item.PaneID)
		if err := q.audit(wire.Trigger{ID: item.ID, Kind: "send", PaneID: item.PaneID, Name: rec.Name, At: item.Taking,
			Finished: q.now(), SHA256: deliver.Digest(text), Length: len(text), Outcome: string(outcome.Interrupted),
			Detail: "the daemon stopped while sending this queued prompt: it may be in the pane, submitted or not",
			Forced: item.Forced, Reason: item.Reason, Envelope: item.Envelope, Typed: true}); err != nil {
			return // kept taken: the next drain audits it
		}
	}
	if err := q.store.Dequeue(item.ID); err != nil {
		q.log.Error().Err(err).Str("id", item.ID).Msg("taken queued prompt not taken out of the queue")
	}
}

// auditedSince returns the last action of that id at the pane audited at or after since:
// the outcome of a send that began then.
func (q *queue) auditedSince(id, paneID string, since time.Time) (wire.Trigger, bool, error) {
	trig, err := q.store.Triggers(paneID, 0)
	if err != nil {
		return wire.Trigger{}, false, err
	}
	var last wire.Trigger
	found := false
	for _, t := range trig {
		if t.ID == id && !t.At.Before(since) {
			last, found = t, true
		}
	}
	return last, found, nil
}

// drop gives up on a queued prompt and audits why.
func (q *queue) drop(item wire.Queued, why string) {
	if err := q.store.Dequeue(item.ID); err != nil {
		q.log.Error().Err(err).Str("id", item.ID).Msg("queued prompt not dropped")
		return
	}
	now := q.now()
	q.audit(wire.Trigger{ID: item.ID, Kind: "send", PaneID: item.PaneID, At: now, Finished: now,
		Outcome: string(outcome.TargetNotFound), Detail: "queued prompt dropped: " + why, Forced: item.Forced, Reason: item.Reason,
		Envelope: item.Envelope})
}

// audit records what the queue did; an error is logged and returned for the sender, if
// one waits.
func (q *queue) audit(t wire.Trigger) error {
	err := q.store.AddTrigger(t)
	if err != nil {
		q.log.Error().Err(err).Str("id", t.ID).Str("outcome", t.Outcome).Msg("audit not recorded")
	}
	return err
}

// keepQueued: a prompt refused for now waits for another chance; never one that may
// have been typed (a paste whose Enter a mode refused), or it would be typed twice.
func keepQueued(res wire.Result) bool {
	if res.Typed {
		return false
	}
	switch res.Outcome {
	case outcome.NotReady, outcome.OperatorBusy, outcome.DeferTimeout, outcome.TriggerRateLimited:
		return true
	}
	return false
}
