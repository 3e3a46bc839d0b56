// Package metrics counts what the daemon does (actions on panes, notifications, restarts
// of managed workers, registry drift) and reads how many panes are in each state, as
// Prometheus metrics: text for `paneherd metrics`, HTTP for a scraper (serve.go). The
// metrics live in a registry of their own, not the process-wide default, so nothing but
// paneherd's own figures is exposed.
package metrics

import (
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/state"
)

// Set is the daemon's metrics; safe for use from any goroutine.
type Set struct {
	reg           *prometheus.Registry
	attempts      *prometheus.CounterVec
	deliveries    *prometheus.CounterVec
	retries       prometheus.Counter
	timeouts      *prometheus.CounterVec
	notifications *prometheus.CounterVec
	restarts      *prometheus.CounterVec
	drifts        *prometheus.CounterVec
	panes         *paneStates
}

// triggerKinds are the actions delivery audits; each shows from the start, at 0, so a
// scraper's rate() has a series before the first action. So do the timeouts of a send,
// the one action that waits (for a person to stop typing, for the prompt to be taken).
// Series of the other counters appear with their first count: their labels (events,
// workers, kinds of drift) belong to the packages that count them.
var (
	triggerKinds = []string{"send", "approve", "deny"}
	sendTimeouts = []outcome.Outcome{outcome.AckTimeout, outcome.DeferTimeout}
)

// New returns a Set with every counter at 0 and no pane states (PaneStates sets them).
func New() *Set {
	s := &Set{
		reg: prometheus.NewRegistry(),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "paneherd_trigger_attempts_total",
			Help: "Actions on panes (send, approve, deny) that ended, whatever their outcome."}, []string{"kind"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "paneherd_trigger_deliveries_total",
			Help: "Actions on panes that took effect: a prompt DELIVERED, a dialog ANSWERED."}, []string{"kind"}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{Name: "paneherd_trigger_retries_total",
			Help: "Retries of submitting a prompt that was not acknowledged in time, over all actions."}),
		timeouts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "paneherd_trigger_timeouts_total",
			Help: "Actions that gave up waiting: ACK_TIMEOUT (prompt not taken), DEFER_TIMEOUT (a person kept typing)."},
			[]string{"kind", "outcome"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "paneherd_notifications_total",
			Help: "Notifications delivered to a person, by event (needs-confirmation, finished, error, stalled, exited, test)."},
			[]string{"kind"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "paneherd_worker_restarts_total",
			Help: "Restarts of managed workers, by worker and why."}, []string{"worker", "why"}),
		drifts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "paneherd_reconcile_drifts_total",
			Help: "Registry records that reconcile found no longer matching tmux, by what differed."}, []string{"kind"}),
		panes: &paneStates{desc: prometheus.NewDesc("paneherd_panes",
			"Panes watched now, by state.", []string{"state"}, nil)},
	}
	for _, k := range triggerKinds {
		s.attempts.WithLabelValues(k)
		s.deliveries.WithLabelValues(k)
	}
	for _, o := range sendTimeouts {
		s.timeouts.WithLabelValues("send", string(o))
	}
	s.reg.MustRegister(s.attempts, s.deliveries, s.retries, s.timeouts, s.notifications, s.restarts, s.drifts, s.panes)
	return s
}

// Trigger counts one action on a pane that ended with outcome (an internal/outcome name)
// after retries retries of its submission.
func (s *Set) Trigger(kind, result string, retries int) {
	s.attempts.WithLabelValues(kind).Inc()
	switch outcome.Outcome(result) {
	case outcome.Delivered, outcome.Answered:
		s.deliveries.WithLabelValues(kind).Inc()
	case outcome.AckTimeout, outcome.DeferTimeout:
		s.timeouts.WithLabelValues(kind, result).Inc()
	}
	if retries > 0 {
		s.retries.Add(float64(retries))
	}
}

// Notified counts a notification delivered to a person, by its kind (the event).
func (s *Set) Notified(kind string) { s.notifications.WithLabelValues(kind).Inc() }

// Restart counts a managed worker restarted, and why.
func (s *Set) Restart(worker, why string) { s.restarts.WithLabelValues(worker, why).Inc() }

// Drift counts a registry record that reconcile found no longer matching tmux.
func (s *Set) Drift(kind string) { s.drifts.WithLabelValues(kind).Inc() }

// PaneStates makes f the source of the panes gauge: f is called at each scrape and says
// how many panes are in each state. Every state shows, at 0 when f does not name it.
func (s *Set) PaneStates(f func() map[string]int) { s.panes.set(f) }

// WriteText writes every metric in the Prometheus text exposition format.
func (s *Set) WriteText(w io.Writer) error {
	families, err := s.reg.Gather()
	if err != nil {
		return fmt.Errorf("metrics: gather: %w", err)
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			return fmt.Errorf("metrics: write: %w", err)
		}
	}
	return nil
}

// Handler serves the metrics to a Prometheus scraper (any path; Serve mounts it at
// /metrics).
func (s *Set) Handler() http.Handler {
	return promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{})
}

// paneStates is the panes gauge: a collector that asks its function at each scrape, once
// for every state.
type paneStates struct {
	desc *prometheus.Desc
	mu   sync.Mutex
	f    func() map[string]int
}

func (p *paneStates) set(f func() map[string]int) {
	p.mu.Lock()
	p.f = f
	p.mu.Unlock()
}

func (p *paneStates) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }

func (p *paneStates) Collect(ch chan<- prometheus.Metric) {
	p.mu.Lock()
	f := p.f
	p.mu.Unlock()
	counts := map[string]int{}
	if f != nil {
		counts = f()
	}
	for _, st := range state.All {
		if _, ok := counts[string(st)]; !ok {
			counts[string(st)] = 0
		}
	}
	for name, n := range counts {
		ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, float64(n), name)
	}
}
