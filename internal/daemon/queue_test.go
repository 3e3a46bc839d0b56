package daemon

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/store"
)

func tempStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// panes is the watcher's view for a queue under test.
type panes map[string]wire.Pane

func (p panes) lookup(id string) (wire.Pane, bool) {
	rec, ok := p[id]
	return rec, ok
}

func testQueue(t *testing.T, st *store.Store, s tmux.Server, view panes) *queue {
	e := deliver.New(s, deliver.DefaultConfig)
	e.Lookup = func(id string) (deliver.Pane, bool) {
		rec, ok := view[id]
		return deliver.Pane{ID: rec.ID, Name: rec.Name, State: state.State(rec.State)}, ok
	}
	e.Audit = st.AddTrigger
	return newQueue(st, e, view.lookup, zerolog.Nop())
}

func ask(id, pane string) wire.SendAsk {
	return wire.SendAsk{SendRequest: wire.SendRequest{ID: id, PaneID: pane, Text: "do it"}, Queue: true}
}

func TestQueueKeepsAPromptForABusyPane(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, tmux.Server{}, panes{"%1": {ID: "%1", Name: "w", State: "BUSY", Server: "s1"}})
	res, err := q.send(context.Background(), ask("t1", "%1"))
	if err != nil || res.Outcome != outcome.Queued {
		t.Fatalf("send = %+v, %v; want QUEUED", res, err)
	}
	items, _ := st.Queue()
	if len(items) != 1 || items[0].Server != "s1" {
		t.Errorf("queue = %+v", items)
	}
	if trig, _ := st.Triggers("%1", 0); len(trig) != 1 || trig[0].Outcome != "QUEUED" {
		t.Errorf("the queueing was not audited: %+v", trig)
	}
}

// TestPromptNotPersistedIsReported: a prompt the store could not keep is an error for
// its sender, never QUEUED.
func TestPromptNotPersistedIsReported(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, tmux.Server{}, panes{"%1": {ID: "%1", State: "BUSY"}})
	st.Close()
	res, err := q.send(context.Background(), ask("t1", "%1"))
	if err == nil || !strings.Contains(err.Error(), "not queued") {
		t.Fatalf("send = %+v, %v; want an error saying the prompt was not queued", res, err)
	}
}

func TestDrainDropsThePromptOfAGonePane(t *testing.T) {
	st := tempStore(t)
	view := panes{"%1": {ID: "%1", State: "BUSY", Server: "s1"}}
	q := testQueue(t, st, tmux.Server{}, view)
	q.send(context.Background(), ask("t1", "%1"))
	delete(view, "%1")
	q.drain(context.Background())
	if items, _ := st.Queue(); len(items) != 0 {
		t.Errorf("the prompt of a gone pane stays queued: %+v", items)
	}
	trig, _ := st.Triggers("%1", 0)
	if len(trig) != 2 || trig[1].Outcome != "TARGET_NOT_FOUND" || !strings.Contains(trig[1].Detail, "dropped") {
		t.Errorf("the drop was not audited: %+v", trig)
	}
}

// TestDrainIgnoresAPaneOfAnotherServer: pane ids restart with a new tmux server.
func TestDrainIgnoresAPaneOfAnotherServer(t *testing.T) {
	st := tempStore(t)
	view := panes{"%1": {ID: "%1", State: "BUSY", Server: "old"}}
	q := testQueue(t, st, tmux.Server{}, view)
	q.send(context.Background(), ask("t1", "%1"))
	view["%1"] = wire.Pane{ID: "%1", State: "READY", Server: "new"}
	q.drain(context.Background())
	if items, _ := st.Queue(); len(items) != 0 {
		t.Errorf("a prompt for the old server's %%1 stays queued: %+v", items)
	}
}

// TestDrainPutsBackAPromptThePaneRefusesForNow: the watcher said READY, the engine's
// own look says otherwise: the prompt goes back, and waits retryAfter.
func TestDrainPutsBackAPromptThePaneRefusesForNow(t *testing.T) {
	h := tmuxtest.New(t)
	id := h.NewSession("w", "")
	st := tempStore(t)
	view := panes{id: {ID: id, State: "BUSY"}}
	q := testQueue(t, st, h.Server, view)
	q.send(context.Background(), ask("t1", id))
	q.pane = func(string) (wire.Pane, bool) { return wire.Pane{ID: id, State: "READY"}, true }
	q.drain(context.Background())
	items, _ := st.Queue()
	if len(items) != 1 || items[0].LastTry.IsZero() {
		t.Fatalf("the refused prompt was not put back with its try: %+v", items)
	}
	if trig, _ := st.Triggers(id, 0); len(trig) != 2 || trig[1].Outcome != "NOT_READY" {
		t.Errorf("the try was not audited: %+v", trig)
	}
	q.drain(context.Background())
	if trig, _ := st.Triggers(id, 0); len(trig) != 2 {
		t.Errorf("tried again within %s: %+v", retryAfter, trig)
	}
	q.now = func() time.Time { return time.Now().Add(retryAfter) }
	q.drain(context.Background())
	if trig, _ := st.Triggers(id, 0); len(trig) != 3 {
		t.Errorf("not tried again after %s: %+v", retryAfter, trig)
	}
}

// noServer is a tmux server that is not running: an engine that reaches it fails
// without touching the user's own tmux.
func noServer(t *testing.T) tmux.Server {
	return tmux.Server{Socket: filepath.Join(t.TempDir(), "none")}
}

// queued puts a prompt into the store as the queue would, at a time of its own.
func queued(t *testing.T, st *store.Store, id, pane string, at, lastTry time.Time) {
	t.Helper()
	if err := st.Enqueue(wire.Queued{ID: id, PaneID: pane, Text: "do it", At: at, Server: "s1", LastTry: lastTry}); err != nil {
		t.Fatal(err)
	}
}

func queuedIDs(t *testing.T, st *store.Store) string {
	t.Helper()
	items, err := st.Queue()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return strings.Join(ids, ",")
}

// TestDrainKeepsAPanesPromptsInOrder: while a pane's oldest prompt waits to be tried
// again, its younger prompts wait too; they must not overtake it.
func TestDrainKeepsAPanesPromptsInOrder(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, noServer(t), panes{"%1": {ID: "%1", State: "READY", Server: "s1"}})
	now := time.Now()
	queued(t, st, "old", "%1", now.Add(-time.Minute), now) // refused a moment ago
	queued(t, st, "young", "%1", now.Add(-time.Second), time.Time{})
	q.drain(context.Background())
	if got := queuedIDs(t, st); got != "old,young" {
		t.Errorf("queue after a drain = %s, want old,young", got)
	}
	if trig, _ := st.Triggers("%1", 0); len(trig) != 0 {
		t.Errorf("a prompt was tried while an older one of its pane waits: %+v", trig)
	}
}

// TestQueuedPromptGoesBehindOlderOnes: a --queue prompt to a READY pane whose older
// prompts still wait is queued behind them, not sent ahead of them.
func TestQueuedPromptGoesBehindOlderOnes(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, noServer(t), panes{"%1": {ID: "%1", State: "READY", Server: "s1"}})
	now := time.Now()
	queued(t, st, "old", "%1", now.Add(-time.Minute), now) // refused a moment ago
	res, err := q.send(context.Background(), ask("new", "%1"))
	if err != nil || res.Outcome != outcome.Queued {
		t.Fatalf("send = %+v, %v; want QUEUED", res, err)
	}
	if got := queuedIDs(t, st); got != "old,new" {
		t.Errorf("queue = %s, want old,new", got)
	}
}

// TestQueuedPromptWaitsOutASendUnderWay: while the drain delivers one of a pane's
// prompts, a --queue prompt to that READY pane is queued, not refused as rate limited.
func TestQueuedPromptWaitsOutASendUnderWay(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, noServer(t), panes{"%1": {ID: "%1", State: "READY", Server: "s1"}})
	queued(t, st, "old", "%1", time.Now().Add(-time.Minute), time.Time{})
	entered, release := make(chan struct{}), make(chan struct{})
	lookup := q.engine.Lookup
	var once sync.Once
	q.engine.Lookup = func(id string) (deliver.Pane, bool) {
		once.Do(func() { close(entered); <-release }) // the drain's send, under way
		return lookup(id)
	}
	drained := make(chan struct{})
	go func() { q.drain(context.Background()); close(drained) }()
	defer func() { <-drained }()
	defer close(release)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the drain did not send the queued prompt")
	}
	res, err := q.send(context.Background(), ask("new", "%1"))
	if err != nil || res.Outcome != outcome.Queued {
		t.Errorf("send while the drain sends to the pane = %+v, %v; want QUEUED", res, err)
	}
}

// TestQueuedPromptRefusedForNowIsQueued: a --queue prompt to a READY pane the engine
// refuses for now (here its rate limit) waits in the queue like one for a busy pane.
func TestQueuedPromptRefusedForNowIsQueued(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, noServer(t), panes{"%1": {ID: "%1", State: "READY", Server: "s1"}})
	cfg := deliver.DefaultConfig
	cfg.RateLimit = 1
	q.engine.SetConfig(cfg)
	q.engine.Send(context.Background(), wire.SendRequest{ID: "first", PaneID: "%1", Text: "x"})
	res, err := q.send(context.Background(), ask("second", "%1"))
	if err != nil || res.Outcome != outcome.Queued {
		t.Fatalf("send over the rate limit = %+v, %v; want QUEUED", res, err)
	}
	if got := queuedIDs(t, st); got != "second" {
		t.Errorf("queue = %s, want second", got)
	}
}

// TestStoppingKeepsAQueuedPromptNotTyped: the daemon stops while the drain sends a
// queued prompt, before anything was typed: the engine reports a failure, but the prompt
// stays queued as it was, for the next daemon.
func TestStoppingKeepsAQueuedPromptNotTyped(t *testing.T) {
	h := tmuxtest.New(t)
	id := h.NewSession("w", "")
	st := tempStore(t)
	q := testQueue(t, st, h.Server, panes{id: {ID: id, State: "READY", Server: "s1"}})
	queued(t, st, "t1", id, time.Now().Add(-time.Minute), time.Time{})
	ctx, stop := context.WithCancel(context.Background())
	lookup := q.engine.Lookup
	q.engine.Lookup = func(id string) (deliver.Pane, bool) {
		stop() // the daemon stops as the send starts
		return lookup(id)
	}
	q.drain(ctx)
	trig, _ := st.Triggers(id, 0)
	if len(trig) != 1 || trig[0].Outcome == string(outcome.Delivered) {
		t.Fatalf("the cut-short send was audited as %+v; want one failure", trig)
	}
	items, _ := st.Queue()
	if len(items) != 1 || items[0].ID != "t1" || !items[0].LastTry.IsZero() {
		t.Errorf("queue after a send cut short before typing = %+v; want t1 as it was", items)
	}
}

// TestAPromptThatMayBeTypedIsNeverQueuedAgain: sending it again could type it twice.
func TestAPromptThatMayBeTypedIsNeverQueuedAgain(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  wire.Result
		want bool
	}{
		{"not ready", wire.Result{Outcome: outcome.NotReady}, true},
		{"rate limited", wire.Result{Outcome: outcome.TriggerRateLimited}, true},
		{"paste refused by a mode", wire.Result{Outcome: outcome.OperatorBusy}, true},
		{"Enter refused by a mode", wire.Result{Outcome: outcome.OperatorBusy, Typed: true}, false},
		{"gone", wire.Result{Outcome: outcome.TargetNotFound}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := keepQueued(tc.res); got != tc.want {
				t.Errorf("keepQueued(%+v) = %v, want %v", tc.res, got, tc.want)
			}
		})
	}
}

// TestQueuedEnvelopeKeepsItsEnvelope: a queued envelope send keeps its envelope in the
// store, audits the digest of the wrapped prompt, and the drain sends it with it.
func TestQueuedEnvelopeKeepsItsEnvelope(t *testing.T) {
	st := tempStore(t)
	view := panes{"%1": {ID: "%1", State: "BUSY", Server: "s1"}}
	q := testQueue(t, st, noServer(t), view)
	a := ask("t1", "%1")
	a.Envelope = "job-7"
	if res, err := q.send(context.Background(), a); err != nil || res.Outcome != outcome.Queued {
		t.Fatalf("send = %+v, %v; want QUEUED", res, err)
	}
	items, _ := st.Queue()
	if len(items) != 1 || items[0].Envelope != "job-7" {
		t.Fatalf("queue = %+v; want the prompt with its envelope", items)
	}
	wrapped := deliver.Digest("[TRIGGER id=job-7]\ndo it\n[/TRIGGER]")
	if trig, _ := st.Triggers("%1", 0); len(trig) != 1 || trig[0].Envelope != "job-7" || trig[0].SHA256 != wrapped {
		t.Errorf("the queueing audited %+v; want the envelope and the wrapped prompt's digest", trig)
	}
	// No tmux server: the engine's send fails, but its audit shows what it was asked.
	view["%1"] = wire.Pane{ID: "%1", State: "READY", Server: "s1"}
	q.drain(context.Background())
	if trig, _ := st.Triggers("%1", 0); len(trig) != 2 || trig[1].Envelope != "job-7" || trig[1].SHA256 != wrapped {
		t.Errorf("the drain's send audited %+v; want it sent with its envelope", trig)
	}
}

// TestAPromptIsMarkedTakenWhileSent: the store says a queued prompt is being sent for as
// long as it is, and the prompt leaves the queue once its outcome is audited.
func TestAPromptIsMarkedTakenWhileSent(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, noServer(t), panes{"%1": {ID: "%1", State: "READY", Server: "s1"}})
	queued(t, st, "t1", "%1", time.Now().Add(-time.Minute), time.Time{})
	var during []wire.Queued
	lookup := q.engine.Lookup
	q.engine.Lookup = func(id string) (deliver.Pane, bool) {
		if during == nil {
			during, _ = st.Queue()
		}
		return lookup(id)
	}
	q.drain(context.Background())
	if len(during) != 1 || during[0].ID != "t1" || during[0].Taking.IsZero() {
		t.Errorf("queue during the send = %+v; want t1 marked taken", during)
	}
	if items, _ := st.Queue(); len(items) != 0 {
		t.Errorf("queue after the send = %+v; want it empty", items)
	}
	if trig, _ := st.Triggers("%1", 0); len(trig) != 1 || trig[0].ID != "t1" {
		t.Errorf("audit = %+v; want the send's outcome", trig)
	}
}

// TestATakenPromptLeftByADeadDaemonIsAuditedInterrupted: a prompt a daemon took and
// never settled (killed during the send) is audited INTERRUPTED by the next one and
// never sent again, even when that one dies too before taking it out; one whose send
// was audited as typed before the daemon died (delivered, or its Enter refused) just
// leaves.
func TestATakenPromptLeftByADeadDaemonIsAuditedInterrupted(t *testing.T) {
	st := tempStore(t)
	q := testQueue(t, st, noServer(t), panes{"%1": {ID: "%1", Name: "w", State: "READY", Server: "s1"},
		"%2": {ID: "%2", State: "READY", Server: "s1"}, "%3": {ID: "%3", State: "READY", Server: "s1"}})
	taken := time.Now().Add(-time.Second)
	cut := wire.Queued{ID: "cut", PaneID: "%1", Text: "do it", At: taken.Add(-time.Minute), Server: "s1", Taking: taken}
	for _, item := range []wire.Queued{cut,
		{ID: "settled", PaneID: "%2", Text: "do that", At: taken.Add(-time.Minute), Server: "s1", Taking: taken},
		{ID: "unsubmitted", PaneID: "%3", Text: "do so", At: taken.Add(-time.Minute), Server: "s1", Taking: taken},
	} {
		if err := st.Enqueue(item); err != nil {
			t.Fatal(err)
		}
	}
	st.AddTrigger(wire.Trigger{ID: "settled", Kind: "send", PaneID: "%2", At: taken, Outcome: string(outcome.Delivered), Typed: true})
	st.AddTrigger(wire.Trigger{ID: "unsubmitted", Kind: "send", PaneID: "%3", At: taken, Outcome: string(outcome.OperatorBusy), Typed: true})
	sent := 0
	q.engine.Lookup = func(string) (deliver.Pane, bool) { sent++; return deliver.Pane{}, false }
	q.drain(context.Background())
	if items, _ := st.Queue(); len(items) != 0 {
		t.Errorf("queue = %+v; want every taken prompt out", items)
	}
	audit, _ := st.Triggers("%1", 0)
	if len(audit) != 1 || audit[0].Outcome != string(outcome.Interrupted) || audit[0].Name != "w" || !audit[0].At.Equal(taken) ||
		audit[0].SHA256 != deliver.Digest("do it") || !audit[0].Typed {
		t.Errorf("audit of the cut-short send = %+v; want one INTERRUPTED, of the prompt, since it was taken, maybe typed", audit)
	}
	for _, pane := range []string{"%2", "%3"} {
		if settled, _ := st.Triggers(pane, 0); len(settled) != 1 {
			t.Errorf("audit of the settled send at %s = %+v; want its outcome only", pane, settled)
		}
	}
	// The daemon that audited it INTERRUPTED died before taking it out.
	if err := st.Enqueue(cut); err != nil {
		t.Fatal(err)
	}
	q.drain(context.Background())
	if items, _ := st.Queue(); len(items) != 0 {
		t.Errorf("queue = %+v; want the prompt audited INTERRUPTED out", items)
	}
	if sent != 0 {
		t.Errorf("the engine was asked to send %d times; a taken prompt may be typed already", sent)
	}
}

// TestATakenPromptWhoseSendTypedNothingStaysQueued: a daemon died after its send of a
// queued prompt was audited as typing nothing (refused for now, or cut short by the
// daemon stopping) and before the prompt went back to the queue: the next daemon puts
// it back, a refusal counted as a try, rather than dropping a prompt nothing was typed of.
func TestATakenPromptWhoseSendTypedNothingStaysQueued(t *testing.T) {
	for _, tc := range []struct {
		name, outcome, detail string
		counted               bool
	}{
		{"refused for now", string(outcome.NotReady), "the pane is BUSY, not READY", true},
		{"cut short", string(outcome.SendKeysError), "cancelled before the prompt was typed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tempStore(t)
			q := testQueue(t, st, noServer(t), panes{"%1": {ID: "%1", Name: "w", State: "READY", Server: "s1"}})
			taken := time.Now().Add(-time.Second)
			tried := taken.Add(100 * time.Millisecond)
			if err := st.Enqueue(wire.Queued{ID: "t1", PaneID: "%1", Text: "do it", At: taken.Add(-time.Minute),
				Server: "s1", Taking: taken}); err != nil {
				t.Fatal(err)
			}
			st.AddTrigger(wire.Trigger{ID: "t1", Kind: "send", PaneID: "%1", At: taken, Finished: tried,
				Outcome: tc.outcome, Detail: tc.detail})
			sent := 0
			q.engine.Lookup = func(string) (deliver.Pane, bool) { sent++; return deliver.Pane{}, false }
			q.drain(context.Background())
			items, _ := st.Queue()
			if len(items) != 1 || items[0].ID != "t1" || !items[0].Taking.IsZero() {
				t.Fatalf("queue = %+v; want the prompt back, not taken", items)
			}
			if counted := !items[0].LastTry.IsZero(); counted != tc.counted || (counted && !items[0].LastTry.Equal(tried)) {
				t.Errorf("its last try = %v; want it counted (at its send's end) %v", items[0].LastTry, tc.counted)
			}
			if trig, _ := st.Triggers("%1", 0); len(trig) != 1 {
				t.Errorf("audit = %+v; want the send's outcome only", trig)
			}
			if sent != 0 {
				t.Errorf("the engine was asked to send %d times while the prompt was settled", sent)
			}
		})
	}
}

// A worker restarted in a new pane in place of its old one keeps the prompts queued for
// it: they wait for the new pane, and a drain with the old one gone keeps them.
func TestQueuedPromptsFollowAWorkerIntoItsNewPane(t *testing.T) {
	st := tempStore(t)
	view := panes{"%1": {ID: "%1", Name: "api", State: "BUSY", Server: "s1"}, "%7": {ID: "%7", State: "BUSY", Server: "s1"}}
	q := testQueue(t, st, tmux.Server{}, view)
	q.send(context.Background(), ask("t1", "%1"))
	q.send(context.Background(), ask("t2", "%7"))
	delete(view, "%1")
	view["%2"] = wire.Pane{ID: "%2", Name: "api", State: "BUSY", Server: "s1"}
	q.rebind("%1", "%2")
	q.drain(context.Background())
	items, _ := st.Queue()
	got := map[string]string{}
	for _, it := range items {
		got[it.ID] = it.PaneID
	}
	if len(items) != 2 || got["t1"] != "%2" || got["t2"] != "%7" {
		t.Errorf("queue after the restart = %v; want t1 for the new pane %%2, t2 where it was", got)
	}
}
