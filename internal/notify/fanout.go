package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Sent is what became of a notification, for the history: what each backend did.
type Sent struct {
	Notification
	Results []Result // in the order of the routes: the desktop-or-tmux choice, then the extras
}

// Result is one backend's part in a notification.
type Result struct {
	Backend string
	Err     error // nil: delivered
	// Covered: it failed and another took its place (auto: tmux messages when the
	// desktop cannot), so its failure is no failure of the notification.
	Covered bool
}

// Delivered reports whether some backend delivered it.
func (s Sent) Delivered() bool { return s.Backends() != "" }

// Backends names the backends that delivered it, as "desktop, webhook"; "" when none did.
func (s Sent) Backends() string {
	var names []string
	for _, r := range s.Results {
		if r.Err == nil {
			names = append(names, r.Backend)
		}
	}
	return strings.Join(names, ", ")
}

// Failure says what failed and no other backend covered, one backend after the other;
// nil when nothing did.
func (s Sent) Failure() error {
	if len(s.Results) == 0 {
		return ErrOff
	}
	var errs failures
	for _, r := range s.Results {
		if r.Err != nil && !r.Covered {
			errs = append(errs, r.Err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// failures are several backends' errors, on one line.
type failures []error

func (f failures) Error() string {
	texts := make([]string, len(f))
	for i, err := range f {
		texts[i] = err.Error()
	}
	return strings.Join(texts, "; ")
}

func (f failures) Unwrap() []error { return f }

// Errors a notification's send can end with, besides a backend's own.
var (
	// ErrOff: nothing was sent, notifications are off.
	ErrOff = errors.New("notifications are off (@paneherd-notify-backend off)")
	// ErrBehind: the backend's queue was full (it is slow or hangs), so this one was
	// dropped rather than sent late and piled up.
	ErrBehind = errors.New("dropped: the backend is behind (its queue is full)")
	// ErrStopped: paneherd stopped before the backend's turn came.
	ErrStopped = errors.New("not sent: paneherd stopped first")
	// ErrTurnedOff: the options turned the backend off (its own option unset, or changed
	// to what it cannot work with, or @paneherd-notify-backend off) before its turn came.
	ErrTurnedOff = errors.New("not sent: turned off by a change of the options before its turn came")
)

// sendDeadline bounds one notification's send through one backend (the desktop's tries
// and the tmux fallback's together).
const sendDeadline = 10 * time.Second

// TestDeadline bounds each backend's part in `paneherd notify test` (Deliver), below
// what its client waits for the answer: a backend that hangs is a line saying so, never
// a test that answers nothing.
const TestDeadline = 8 * time.Second

// commandGrace is how long after the command backend's own timeout its lane gives up:
// the backend ends its program at that timeout and says so itself.
const commandGrace = 2 * time.Second

// laneQueue is how many notifications may wait for one backend: a burst of several
// panes is one notification, so a backend this far behind hangs.
const laneQueue = 16

// route is one way out, with a lane of its own: an extra backend, or the desktop with
// tmux messages behind it (auto).
type route struct {
	name     string    // its lane's, as the history, the log and the metrics name it
	chain    []Backend // tried in order until one delivers
	deadline time.Duration
	// uncapped is the deadline Deliver shortened to TestDeadline; 0 when it did not.
	uncapped time.Duration
}

// routes are the ways the configuration sends a notification, and why the extra
// backends it turns on but could not build are not among them.
func (n *Notifier) routes() ([]route, []error) {
	now := n.setup.Load()
	cfg, extras, problems := now.cfg, now.extras, now.problems
	var chain []Backend
	switch cfg.Backend {
	case "off":
		return nil, nil
	case "desktop":
		chain = []Backend{n.Desktop}
	case "tmux":
		chain = []Backend{n.Tmux}
	default:
		chain = []Backend{n.Desktop, n.Tmux}
	}
	routes := []route{{name: chain[0].Name(), chain: chain, deadline: n.sendDeadline}}
	for _, b := range extras {
		routes = append(routes, route{name: b.Name(), chain: []Backend{b}, deadline: cfg.deadline(b.Name(), n.sendDeadline)})
	}
	return routes, problems
}

// route is the route of the lane called name as the configuration has it now; false
// when the configuration no longer turns it on.
func (n *Notifier) route(name string) (route, bool) {
	routes, _ := n.routes()
	for _, r := range routes {
		if r.name == name {
			return r, true
		}
	}
	return route{}, false
}

// deadline is how long a send through the backend called name may take.
func (c Config) deadline(name string, normal time.Duration) time.Duration {
	if name == "command" && c.CommandTimeout+commandGrace > normal {
		return c.CommandTimeout + commandGrace
	}
	return normal
}

// capped is r with a deadline of at most limit.
func (r route) capped(limit time.Duration) route {
	if r.deadline > limit {
		r.uncapped, r.deadline = r.deadline, limit
	}
	return r
}

// send tries the route's backends in turn, within its deadline, until one delivers.
func (r route) send(ctx context.Context, x Notification) []Result {
	if ctx.Err() != nil {
		return []Result{{Backend: r.name, Err: named(r.name, ErrStopped)}}
	}
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	var results []Result
	for _, b := range r.chain {
		err := b.Send(ctx, x)
		if errors.Is(err, ErrSkipped) {
			return results // nothing of this event is the backend's (a sound for a stall)
		}
		if err == nil {
			for i := range results {
				results[i].Covered = true
			}
			return append(results, Result{Backend: b.Name()})
		}
		results = append(results, Result{Backend: b.Name(), Err: r.failure(ctx, b.Name(), err)})
	}
	return results
}

// failure is err named by its backend; when notify test's shorter deadline ended it,
// what it says is that, not the backend's own words on its deadline (a command's
// would advise a longer timeout).
func (r route) failure(ctx context.Context, backend string, err error) error {
	if r.uncapped > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &backendError{backend, &overdue{waited: r.deadline, deadline: r.uncapped, err: err}}
	}
	return named(backend, err)
}

// overdue is a backend's send that notify test stopped waiting for.
type overdue struct {
	waited, deadline time.Duration
	err              error
}

func (e *overdue) Error() string {
	return fmt.Sprintf("did not answer within %s, as long as notify test waits (a notification waits up to %s): make it answer sooner", e.waited, e.deadline)
}

func (e *overdue) Unwrap() error { return e.err }

// named makes err say which backend it is from, once.
func named(backend string, err error) error {
	if strings.HasPrefix(err.Error(), backend+":") {
		return err
	}
	return &backendError{backend, err}
}

type backendError struct {
	backend string
	err     error
}

func (e *backendError) Error() string { return e.backend + ": " + e.err.Error() }
func (e *backendError) Unwrap() error { return e.err }

// Deliver sends x through every backend at once, each within its deadline but at most
// TestDeadline, and returns when all have answered: `paneherd notify test`, whose answer
// is a line per backend. The extra backends the configuration turns on but could not
// build answer with why.
func (n *Notifier) Deliver(ctx context.Context, x Notification) Sent {
	routes, problems := n.routes()
	results := make([][]Result, len(routes))
	var wg sync.WaitGroup
	for i, r := range routes {
		wg.Go(func() { results[i] = r.capped(TestDeadline).send(ctx, x) })
	}
	wg.Wait()
	s := Sent{Notification: x}
	for _, rs := range results {
		s.Results = append(s.Results, rs...)
	}
	for _, p := range problems {
		s.Results = append(s.Results, Result{Backend: backendOf(p), Err: p})
	}
	n.logSent(s)
	return s
}

// logSent is a notification's line in the log: who delivered it, what failed.
func (n *Notifier) logSent(s Sent) {
	if err := s.Failure(); err != nil {
		n.Log.Warn().Str("pane", s.PaneID).Str("event", string(s.Event)).Str("delivered_by", s.Backends()).Err(err).
			Msg("notification not delivered everywhere")
		return
	}
	n.Log.Info().Str("pane", s.PaneID).Str("event", string(s.Event)).Str("backend", s.Backends()).Msg("notified")
}

// fanout hands each notification to every route's lane. Only Run's goroutine uses it.
type fanout struct {
	n     *Notifier
	ctx   context.Context
	lanes map[string]*lane
	ended sync.WaitGroup
}

// lane is one backend's goroutine and queue: a backend that is slow or hangs delays only
// what waits in its own queue, and drops what finds it full. What waits goes through the
// backend as the options have it at its turn (Notifier.route).
type lane struct {
	name string
	jobs chan job
	// dropped counts the notifications dropped since the queue last ran empty: the
	// first is logged, and the count when it has caught up.
	dropped int
}

type job struct {
	x    Notification
	done func([]Result)
}

func (n *Notifier) newFanout(ctx context.Context) *fanout {
	return &fanout{n: n, ctx: ctx, lanes: map[string]*lane{}}
}

// send hands x to every route's lane without waiting; done gets every route's results
// once the last lane has sent it (or dropped it).
func (f *fanout) send(x Notification, done func([]Result)) {
	routes, _ := f.n.routes()
	if len(routes) == 0 {
		done(nil)
		return
	}
	gather := newGathering(len(routes), done)
	for i, r := range routes {
		f.lane(r.name).take(f.n, job{x: x, done: func(rs []Result) { gather.add(i, rs) }})
	}
}

// lane returns the lane of the backend called name, started at its first notification.
func (f *fanout) lane(name string) *lane {
	l := f.lanes[name]
	if l == nil {
		l = &lane{name: name, jobs: make(chan job, laneQueue)}
		f.lanes[name] = l
		f.ended.Go(func() { l.run(f.ctx, f.n) })
	}
	return l
}

// close ends the lanes once they have sent (or, ctx over, given up) what waits, and
// waits for them.
func (f *fanout) close() {
	for _, l := range f.lanes {
		close(l.jobs)
	}
	f.ended.Wait()
}

// take queues j, or drops it when the queue is full: logged at the first drop and when
// the lane has caught up, and counted (Notifier.Dropped) each time.
func (l *lane) take(n *Notifier, j job) {
	select {
	case l.jobs <- j:
		if len(l.jobs) <= 1 && l.dropped > 0 {
			n.Log.Info().Str("backend", l.name).Int("dropped", l.dropped).Msg("notification backend caught up")
			l.dropped = 0
		}
		return
	default:
	}
	if l.dropped == 0 {
		n.Log.Warn().Str("backend", l.name).Int("queue", laneQueue).
			Msg("notification backend is behind (slow or hanging): notifications to it are dropped until it catches up")
	}
	l.dropped++
	if n.Dropped != nil {
		n.Dropped(l.name)
	}
	j.done([]Result{{Backend: l.name, Err: named(l.name, ErrBehind)}})
}

// run sends what the lane is given, one at a time, until its queue is closed.
func (l *lane) run(ctx context.Context, n *Notifier) {
	for j := range l.jobs {
		j.done(l.send(ctx, n, j.x))
	}
}

// send sends x through the lane's backend as configured now: what was queued before a
// change of the options goes to the webhook or command they name at its turn, and
// nowhere once they turn the backend off.
func (l *lane) send(ctx context.Context, n *Notifier, x Notification) []Result {
	r, ok := n.route(l.name)
	if !ok {
		return []Result{{Backend: l.name, Err: named(l.name, ErrTurnedOff)}}
	}
	return r.send(ctx, x)
}

// gathering collects one notification's results from its lanes, in the routes' order,
// and hands them on when the last has answered.
type gathering struct {
	mu      sync.Mutex
	waiting int
	results [][]Result
	done    func([]Result)
}

func newGathering(routes int, done func([]Result)) *gathering {
	return &gathering{waiting: routes, results: make([][]Result, routes), done: done}
}

func (g *gathering) add(i int, rs []Result) {
	g.mu.Lock()
	g.results[i] = rs
	g.waiting--
	last := g.waiting == 0
	g.mu.Unlock()
	if !last {
		return
	}
	var all []Result
	for _, rs := range g.results {
		all = append(all, rs...)
	}
	g.done(all)
}
