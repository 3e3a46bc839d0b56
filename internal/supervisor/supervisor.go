// Package supervisor keeps managed workers: CLIs paneherd started in a directory
// (`paneherd create`). It holds their registry in the store, compares it with tmux every
// few seconds and whenever tmux or the watcher says something changed, restarts a worker
// whose pane died with the command that continues its conversation, gives up on one that
// keeps crashing, nudges and then escalates one that froze, sends scheduled health
// prompts, and retires workers. It acts only through the daemon's delivery engine and
// its prompt path, as every front end does (docs/inside.md, "The supervisor"). Panes it did not start
// are never restarted or prompted.
package supervisor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/live"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// Status is a managed worker's runtime status (wire.Worker.Status).
type Status string

const (
	Starting    Status = "starting"     // launched, not READY yet
	Ready       Status = "ready"        // up: the pane's own state says what it does
	Triggering  Status = "triggering"   // a prompt is being typed into it
	AwaitingAck Status = "awaiting_ack" // a prompt was submitted, not yet taken
	Failed      Status = "failed"       // crashed too often: not restarted until a person says so
	Offline     Status = "offline"      // its pane died or vanished
)

// Restart policies (wire.Worker.Restart).
const (
	OnFailure = "on-failure" // restart after a crash, not after a clean exit (status 0)
	Always    = "always"
	Never     = "never"
)

// Config is what the options decide.
type Config struct {
	// Workspaces are the directories workers may be created in (and under); the
	// daemon gives the person's home when the option is empty.
	Workspaces []string
	// WorktreeDir is where --worktree makes worktrees; "": beside the repository, in
	// <repo>.worktrees/<branch>.
	WorktreeDir string
	// CrashLimit failures within CrashWindow make a worker Failed.
	CrashLimit  int
	CrashWindow time.Duration
	// NudgeEvery is how long a frozen worker is given after a nudge; after Nudges
	// nudges it is escalated.
	NudgeEvery time.Duration
	Nudges     int
	// RetireWait is how long a retired worker has to quit after its interrupt keys.
	RetireWait time.Duration
	// HealthGap is the least time between two health prompts to a worker.
	HealthGap time.Duration
	// Quiet: a keystroke in a worker's session within this makes a person active there.
	Quiet time.Duration
}

// DefaultConfig is what the issue asks for.
var DefaultConfig = Config{CrashLimit: 3, CrashWindow: 15 * time.Minute, NudgeEvery: 15 * time.Second, Nudges: 2,
	RetireWait: 10 * time.Second, HealthGap: 5 * time.Minute, Quiet: 20 * time.Second}

// Timings that are the runtime model's, not options.
const (
	// reconcileEvery is how often records are compared with tmux besides events.
	reconcileEvery = 5 * time.Second
	// pokeGap is the least time between two reconciles caused by pokes.
	pokeGap = 100 * time.Millisecond
	// staleAfter: a worker idle this long is started fresh after an unacknowledged
	// prompt: its old conversation is not worth continuing.
	staleAfter = 12 * time.Hour
	// maxResumes bounds restarts after unacknowledged prompts until one is taken.
	maxResumes = 2
	// launchGrace is how long a launched worker's pane may go unseen by the watcher
	// before its absence means something.
	launchGrace = 10 * time.Second
	// resumeGrace: a worker started with its resume command that dies sooner than this
	// is started fresh next time (there was no conversation to continue).
	resumeGrace = 30 * time.Second
	// keyGap spaces a pack's nudge and interrupt keys: pressed together, CLIs read them as
	// one burst (deliver.PressRequest.Gap).
	keyGap = 300 * time.Millisecond
	// deadChecks bounds the looks, 100 ms apart, at a dead pane whose exit status tmux
	// has not recorded yet; then it counts as killed. tmux 3.3a never records the status
	// of a process killed by a signal, so each look here delays such a death's restart.
	deadChecks = 2
	// healthMisses automatic prompts in a row with no effect pause them.
	healthMisses = 3
)

// Metrics counts what the supervisor does (internal/metrics); nil counts nothing.
type Metrics interface {
	Restart(worker, why string)
	Drift(kind string)
}

// Supervisor is the daemon's supervisor of managed workers.
type Supervisor struct {
	Server tmux.Server
	Store  *store.Store
	Packs  *packs.Set
	// Pane is a pane as the watcher sees it now, and the pack reading it.
	Pane func(id string) (wire.Pane, *packs.Pack, bool)
	// Send delivers a prompt the way `paneherd send` does (the daemon's queue).
	Send func(ctx context.Context, ask wire.SendAsk) (wire.Result, error)
	// Press presses keys through the delivery engine (guarded, audited).
	Press func(ctx context.Context, req deliver.PressRequest) wire.Result
	// Notify offers a notification to the notifier; it must not block.
	Notify func(notify.Notification)
	// Wake asks the observer for a full look soon (a launched pane is news to it).
	Wake func()
	// Replaced says a restart started a worker in a new pane in place of its old one:
	// what waits for the old pane (queued prompts) goes to the new one.
	Replaced func(old, new string)
	Metrics  Metrics
	Log      zerolog.Logger
	// Registry is the file the registry is published to, for `workers` and `status`.
	Registry string
	// Binary is paneherd's executable, for the pane-died hook of the windows it opens
	// ("": none).
	Binary string

	cfg live.Value[Config] // the options: a reload never waits on a reconcile

	mu        sync.Mutex              // guards workers, the runtime state below
	workers   map[string]*wire.Worker // by name
	reserved  map[string]bool         // names a create under way holds
	published time.Time               // when the registry was last published
	active    map[string]bool         // sessions a person typed in lately (activeSessions)
	live      string                  // the tmux server's identity, as tmux said it last (learnServer)
	clientsAt time.Time               // when those were asked of tmux
	run       map[string]*runtime     // by name: what is not worth storing
	phases    phases
	poke      chan struct{}
	now       func() time.Time
	wg        sync.WaitGroup
	// written is the registry file as last published: republishLost tells it lost.
	written paths.Written
}

// runtime is what the supervisor remembers of a worker between looks, and forgets when
// the daemon restarts: a frozen worker is nudged anew, a health prompt waits a full gap.
type runtime struct {
	since      time.Time // last launched, or loaded by this daemon: the launch grace counts from it
	resumed    bool      // last launched with its resume command
	down       string    // how it last went offline: died, exited, gone (metrics)
	watched    int       // the pid whose exit is watched (watchExit)
	unwatch    func()
	backoff    time.Duration
	notBefore  time.Time // the next launch waits until then (backoff)
	seen       bool      // the watcher has seen the pane launched last
	nudges     int
	nudgedAt   time.Time
	escalated  bool
	deadChecks int       // looks at a dead pane whose exit status tmux did not know yet
	lastHealth time.Time // last health prompt sent
	healthMiss int       // health prompts in a row with no effect
	healthBusy bool      // a health prompt is under way
	healthNext time.Time // a refused health prompt is tried again then
	// handoffBusy: a handoff prompt is under way; handoffNext: a refused one is tried
	// again then.
	handoffBusy bool
	handoffNext time.Time
}

// New returns a supervisor; Start loads its registry and runs it.
func New(cfg Config) *Supervisor {
	s := &Supervisor{workers: map[string]*wire.Worker{}, reserved: map[string]bool{}, run: map[string]*runtime{},
		phases: phases{m: map[string]phase{}, acks: map[string]string{}, dead: map[string]bool{}},
		poke:   make(chan struct{}, 1), now: time.Now, Log: zerolog.Nop()}
	s.SetConfig(cfg)
	return s
}

// SetConfig changes the options (a reload); safe from any goroutine, never waits.
func (s *Supervisor) SetConfig(c Config) { s.cfg.Store(c) }

func (s *Supervisor) config() Config { return s.cfg.Load() }

// Load reads the registry from the store; workers whose panes are gone are found at the
// first reconcile.
func (s *Supervisor) Load() error {
	ws, err := s.Store.Workers()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range ws {
		w := ws[i]
		s.workers[w.Name] = &w
		s.run[w.Name] = &runtime{since: s.now()}
	}
	s.publish()
	return nil
}

// Poke asks for a reconcile soon; it never blocks. The daemon pokes on every tmux hook
// event and every transition of a managed pane.
func (s *Supervisor) Poke() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// Run reconciles every reconcileEvery and on pokes until ctx ends, then waits for the
// health prompts under way.
func (s *Supervisor) Run(ctx context.Context) {
	defer s.wg.Wait()
	t := time.NewTicker(reconcileEvery)
	defer t.Stop()
	for {
		last := time.Now()
		s.Reconcile(ctx)
		s.republishLost()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.poke:
			// Pokes come with every transition of every pane (20 a second in a busy
			// fleet): those close together make one reconcile.
			if deliver.Sleep(ctx, pokeGap-time.Since(last)) != nil {
				return
			}
		}
	}
}

// Workers returns the registry, by name.
func (s *Supervisor) Workers() []wire.Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list()
}

// Managed reports whether a pane is a managed worker's.
func (s *Supervisor) Managed(paneID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byPane(paneID) != nil
}

func (s *Supervisor) byPane(paneID string) *wire.Worker {
	for _, w := range s.workers {
		if w.PaneID == paneID {
			return w
		}
	}
	return nil
}

// save stores a worker's record and publishes the registry. Under s.mu. A store that
// fails is logged: the record in memory stays right, and is stored at the next change.
func (s *Supervisor) save(w *wire.Worker) {
	if err := s.Store.PutWorker(*w); err != nil {
		s.Log.Error().Err(err).Str("worker", w.Name).Msg("worker record not stored")
	}
	s.publish()
}

// event records one runtime change in the worker's history and the daemon's log, masked
// (secrets.Mask): the detail may name the command the worker runs, the lines are a screen.
func (s *Supervisor) event(w *wire.Worker, kind, detail string, lines ...string) {
	detail, lines = secrets.Mask(detail), maskLines(lines)
	e := wire.WorkerEvent{At: s.now(), Worker: w.Name, ID: w.ID, PaneID: w.PaneID, Kind: kind, Detail: detail, Lines: lines}
	if err := s.Store.AddWorkerEvent(e); err != nil {
		s.Log.Error().Err(err).Str("worker", w.Name).Str("kind", kind).Msg("worker event not stored")
	}
	s.Log.Info().Str("worker", w.Name).Str("worker_id", w.ID).Str("pane", w.PaneID).Str("event", kind).
		Str("detail", detail).Str("status", w.Status).Msg("runtime")
}

// notify sends a critical notification about a worker.
func (s *Supervisor) notify(w *wire.Worker, title, body string) {
	if s.Notify == nil {
		return
	}
	s.Notify(notify.Notification{At: s.now(), PaneID: w.PaneID, Name: w.Name, Target: w.Session + ":" + w.Window,
		Event: notify.Supervisor, State: w.Status, Title: title, Summary: body, Body: body + "\nin " + w.Session + ":" + w.Window, Critical: true})
}

func newID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "w-" + hex.EncodeToString(b)
}

// phases are the sends under way at managed panes, as the delivery engine reports them:
// its own small lock, so the engine never waits on a reconcile.
type phases struct {
	mu   sync.Mutex
	m    map[string]phase  // by pane
	acks map[string]string // by pane: the outcome of the last send that ended, not yet taken
	dead map[string]bool   // panes a pane-died hook named, not yet looked at
}

type phase struct {
	status  Status
	trigger string
}

// Phase is the delivery engine's report of a send's progress (deliver.Engine.Phase).
func (s *Supervisor) Phase(paneID, triggerID string, p deliver.Phase) {
	s.phases.mu.Lock()
	defer s.phases.mu.Unlock()
	switch p {
	case deliver.PhaseTriggering:
		s.phases.m[paneID] = phase{Triggering, triggerID}
	case deliver.PhaseAwaitingAck:
		s.phases.m[paneID] = phase{AwaitingAck, triggerID}
	default:
		delete(s.phases.m, paneID)
	}
	s.Poke()
}

// Died hears a pane-died hook: the pane is looked at through tmux at once, without
// waiting for the watcher's next list (a hook can come before tmux has finished
// the change, and the watcher's look after it too early).
func (s *Supervisor) Died(paneID string) {
	s.phases.mu.Lock()
	s.phases.dead[paneID] = true
	s.phases.mu.Unlock()
	s.Poke()
}

// died reports, once, that a hook said the pane died.
func (p *phases) died(paneID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	was := p.dead[paneID]
	delete(p.dead, paneID)
	return was
}

// forget drops what was noted of panes that are no managed worker's.
func (p *phases) forget(managed map[string]bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.dead {
		if !managed[id] {
			delete(p.dead, id)
		}
	}
	for id := range p.acks {
		if !managed[id] {
			delete(p.acks, id)
		}
	}
}

func (s *Supervisor) phaseOf(paneID string) (phase, bool) {
	s.phases.mu.Lock()
	defer s.phases.mu.Unlock()
	p, ok := s.phases.m[paneID]
	return p, ok
}

// errorf is a refusal with nothing done: its text is the one line the person reads.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// maskLines masks each line, in a new slice (nil for none).
func maskLines(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = secrets.Mask(l)
	}
	return out
}
