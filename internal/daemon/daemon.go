// Package daemon is `paneherd watch`: one process per tmux server that owns the database,
// runs the watcher over an observer, and links it to the rest: tmux options and hook
// events, the pushed status line, notifications, the delivery engine and the prompt
// queue, and the questions front ends ask on its socket. Run wires them, and takes them
// down in order (lifecycle.go).
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneherd/paneherd/internal/contextuse"
	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/fleet"
	"github.com/paneherd/paneherd/internal/logfile"
	"github.com/paneherd/paneherd/internal/metrics"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/supervisor"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/watcher"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/store"
)

// Config is what the command line decides; everything else comes from tmux options.
type Config struct {
	Server tmux.Server
	Dir    paths.Dir
	// Tick and LogLevel, when set, win over @paneherd-tick and @paneherd-log-level for
	// the whole run.
	Tick     time.Duration
	LogLevel string
	// Values are the tmux options as read at start; reloads read them again.
	Values options.Values
	// PackDir is where user packs live ("" : builtins only).
	PackDir string
	// Stderr gets what a person starting the daemon must see (a database moved aside,
	// packs not loaded).
	Stderr io.Writer
	// Processes lists a pane's processes for pack detection (nil: from /proc).
	Processes func(pid int) []packs.Process
	// Version is what this paneherd says it is, for OpAbout.
	Version string
}

// MinTick keeps a typo like --tick 1ms from turning the daemon into a busy loop.
const MinTick = 50 * time.Millisecond

// tmuxDeadline bounds each tmux command the daemon issues (the status option, the
// notifier's and delivery's commands) that has no deadline of its own: a hung tmux must
// hold neither the watcher nor a send, an approve or the queue for ever.
const tmuxDeadline = 5 * time.Second

// Daemon is one running daemon.
type Daemon struct {
	cfg      Config
	server   tmux.Server
	log      *logfile.Log
	store    *store.Store
	w        *watcher.Watcher
	observer observer
	// observerKind is the @paneherd-observer the daemon started with (control mode may
	// have fallen back to polling).
	observerKind string
	notifier     *notify.Notifier
	engine       *deliver.Engine
	queue        *queue
	rules        *rules // the policy (policy.go)
	sup          *supervisor.Supervisor
	reader       *reader             // the optional language-model reader (model.go)
	contexts     *contextuse.Readers // the agents' transcripts and session files (context.go)
	published    *bulletin           // the last snapshot, for OpSnapshot
	fleet        *fleet.Fleet        // other machines' daemons (@paneherd-hosts)
	ssh          *fleet.SSH          // how the fleet reaches each host (@paneherd-ssh)
	fleetChanged chan struct{}
	pushing      atomic.Bool  // status-mode is push
	lease        atomic.Int64 // the pushed lease ends at this Unix second
	metrics      *metrics.Set
	// metricsMu guards the HTTP listener of the metrics and the address it was asked
	// for (@paneherd-metrics-listen): options apply at start and on reload.
	metricsMu     sync.Mutex
	metricsAddr   string
	metricsServer *metrics.Server

	// observing is how the daemon does look: "control", or "poll" (asked for, or control
	// mode fell back to it); started is when it started. Both for OpAbout (about.go).
	observing string
	started   time.Time
}

// Run runs the daemon until ctx ends (nil) or the tmux server exits (nil), and then
// leaves the Stopped mark. It holds the server's daemon lock: a second daemon fails at
// once with daemonlock.ErrHeld.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Dir.Create(); err != nil {
		return err
	}
	lock, err := daemonlock.Acquire(cfg.Dir.Lock())
	if err != nil {
		return fmt.Errorf("watch: tmux server %s: %w", cfg.Server.SocketPath(), err)
	}
	defer lock.Release()
	// A snapshot left by an earlier daemon describes panes we have not looked at yet;
	// while ours is missing, status says so instead of showing stale states.
	os.Remove(cfg.Dir.Snapshot())
	defer os.Remove(cfg.Dir.Snapshot())
	// How the last daemon ended is history once this one runs.
	os.Remove(cfg.Dir.Stopped())
	d, err := open(cfg)
	if err != nil {
		return err
	}
	defer d.log.Close()
	if err := d.run(ctx); err != nil {
		return err
	}
	// Ended on purpose: marked while the lock is still held, so whoever finds no daemon
	// finds the mark too, and does not start one again.
	if err := os.WriteFile(cfg.Dir.Stopped(), nil, 0o600); err != nil {
		d.log.Error().Err(err).Msg("mark stopped")
	}
	return nil
}

// open opens the log and the store and builds the parts; nothing runs yet.
func open(cfg Config) (*Daemon, error) {
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.Processes == nil {
		cfg.Processes = paneProcesses
	}
	log, err := logfile.Open(cfg.Dir.Log(), cfg.level(cfg.Values))
	if err != nil {
		return nil, err
	}
	st, err := openStore(cfg, log)
	if err != nil {
		log.Close()
		return nil, err
	}
	d := &Daemon{cfg: cfg, server: cfg.Server, log: log, store: st, started: time.Now()}
	d.server.Timeout = tmuxDeadline
	d.observer = d.newObserver(cfg.Values)
	d.reader = newReader()
	d.published = newBulletin()
	d.w = d.newWatcher()
	if c, ok := d.observer.(*observe.ControlMode); ok {
		if shell, err := d.w.Packs.Get(watcher.FallbackPack); err == nil {
			c.Shell = shell.HasCommand // names as the pack lists them: shellInFront cuts a login shell's "-"
		}
	}
	d.metrics = d.newMetrics()
	d.notifier = d.newNotifier()
	d.fleet = d.newFleet()
	d.engine = d.newEngine()
	d.rules = newRules(d.engine, d.watched, os.Getenv)
	d.queue = newQueue(d.store, d.engine, d.paneRecord, log.Logger)
	d.sup = d.newSupervisor()
	d.contexts = d.newContexts()
	d.apply(cfg.Values)
	d.recallNotifications() // after apply: the dedupe window and per-pane limit are the options'
	return d, nil
}

func openStore(cfg Config, log *logfile.Log) (*store.Store, error) {
	st, err := store.Open(cfg.Dir.DB(), store.Options{LockTimeout: time.Second})
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("watch: tmux server %s: %w", cfg.Server.SocketPath(), err)
	}
	if err != nil {
		return nil, err
	}
	if msg := st.Recovered(); msg != "" {
		fmt.Fprintf(cfg.Stderr, "paneherd: warning: %s\n", msg)
		log.Warn().Str("recovered", msg).Msg("database was unusable; started a fresh one")
	}
	if why := st.ReadOnly(); why != "" {
		fmt.Fprintf(cfg.Stderr, "paneherd: warning: the database %s: states are published but not stored; "+
			"make it writable (chattr -i or chmod u+w), then run 'paneherd restart'\n", why)
		log.Warn().Str("read_only", why).Msg("database opened read-only; states are published, not stored")
	}
	return st, nil
}

func (d *Daemon) newWatcher() *watcher.Watcher {
	set := packs.Load(d.cfg.PackDir)
	for _, p := range set.Problems {
		fmt.Fprintf(d.cfg.Stderr, "paneherd: warning: %v\n", p)
		d.log.Warn().Err(p).Msg("pack not loaded")
	}
	w := &watcher.Watcher{Packs: set, Store: d.store, Snapshot: d.cfg.Dir.Snapshot(), PID: os.Getpid(),
		Log: d.log.Logger, Processes: d.cfg.Processes}
	w.Push = d.push
	w.Published = d.published.post
	w.Unsure = d.reader.unsure
	w.Transition = func(before wire.Pane, tr wire.Transition) {
		// A dialog the policy takes is told of once it is answered, or asked.
		if tr.To != string(state.NeedsConfirmation) || !d.transition(before, tr) {
			d.notifier.Transition(before, tr)
		}
		d.sup.Poke() // a managed worker may have died, stalled or become READY
		if tr.To == string(state.Ready) {
			d.queue.poke()
		}
	}
	w.ContextMoved = d.contextMoved
	w.PaneGone = func(paneID string) { d.contexts.Forget(paneID) }
	w.AgentExited = func(rec wire.Pane, agent string, at time.Time) {
		if n, ok := notify.FromAgentExit(rec, agent, at); ok {
			d.notifier.Offer(n)
		}
	}
	return w
}

// watched is a pane's record as the watcher reads it now.
func (d *Daemon) watched(id string) (wire.Pane, bool) {
	rec, _, ok := d.w.Pane(id)
	return rec, ok
}

// newEngine builds the delivery engine: panes as the watcher sees them, the audit in
// the store and counted in the metrics.
func (d *Daemon) newEngine() *deliver.Engine {
	e := deliver.New(d.server, deliver.DefaultConfig)
	e.Log = d.log.Logger
	e.Lookup = func(id string) (deliver.Pane, bool) {
		rec, pack, ok := d.w.Pane(id)
		return deliver.Pane{ID: rec.ID, Name: rec.Name, State: state.State(rec.State), Pack: pack}, ok
	}
	e.Packs = d.w.Packs
	e.Audit = func(t wire.Trigger) error {
		d.metrics.Trigger(t.Kind, t.Outcome, t.Retries)
		d.denied(t)
		return d.store.AddTrigger(t)
	}
	return e
}

// denied tells the watcher of a dialog paneherd denied (asked to, or by a policy rule):
// the agent's turn is over, and its READY need not wait for the screen to settle
// (Watcher.Denied).
func (d *Daemon) denied(t wire.Trigger) {
	if t.Choice != packs.ChoiceDeny || t.Outcome != string(outcome.Answered) {
		return
	}
	if _, err := d.w.Denied(t.PaneID, time.Now()); err != nil {
		d.log.Warn().Err(err).Str("pane", t.PaneID).Msg("denied dialog: state not published")
	}
}

// paneRecord is a pane as the watcher sees it now.
func (d *Daemon) paneRecord(id string) (wire.Pane, bool) {
	rec, _, ok := d.w.Pane(id)
	return rec, ok
}

// level is the configured log level, else the option's.
func (c Config) level(values options.Values) string {
	if c.LogLevel != "" {
		return c.LogLevel
	}
	return options.LogLevel.In(values)
}

// tick is the configured tick, else the option's, never below MinTick.
func (c Config) tick(values options.Values) time.Duration {
	d := options.Tick.In(values)
	if c.Tick != 0 {
		d = c.Tick
	}
	return max(d, MinTick)
}
