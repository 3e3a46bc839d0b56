// Package metrics counts what the daemon does (actions on panes, notifications, restarts
// of managed workers, registry drift) and reads how many panes are in each state, as
// Prometheus metrics: text for `paneherd metrics`, HTTP for a scraper (serve.go).
//
// It writes the Prometheus text-based exposition format 0.0.4 itself (counters.go holds
// the series, text.go writes them), with no metrics library: every paneherd process links
// this package (hooks and the job-mode bar run many times a minute and must be silent and
// instant), and both libraries tried cost every one of them at start
// (docs/performance.md#small-costs); VictoriaMetrics/metrics also reads /proc/self/cgroup
// and mountinfo (with a 1 s timeout against hung mounts), and on cgroup v2 without
// pressure files prints an INFO line on stderr, over the person's pane. The format is
// small and stable. This package does nothing at process start: no package-level work.
package metrics

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/paneherd/paneherd/internal/outcome"
)

// Set is the daemon's metrics; safe for use from any goroutine.
type Set struct {
	attempts      *counters
	deliveries    *counters
	retries       *counters
	timeouts      *counters
	notifications *counters
	notifyDrops   *counters
	restarts      *counters
	drifts        *counters
	panes         *paneStates
	work          *work
	families      []*family // sorted by name, as the text shows them
}

// triggerKinds are the actions delivery audits; each shows from the start, at 0, so a
// scraper's rate() has a series before the first action. So do the timeouts of a send,
// the one action that waits (for a person to stop typing, for the prompt to be taken).
// Series of the other counters appear with their first count: their labels (events,
// workers, kinds of drift) belong to the packages that count them.
var (
	triggerKinds = []string{"send", "approve", "deny", "policy-approve", "policy-deny", "policy-dry-run"}
	sendTimeouts = []outcome.Outcome{outcome.AckTimeout, outcome.DeferTimeout}
)

// New returns a Set with every counter at 0 and no pane states (PaneStates sets them).
func New() *Set {
	s := &Set{
		attempts: newCounters("paneherd_trigger_attempts_total",
			"Actions on panes (send, approve, deny) that ended, whatever their outcome."),
		deliveries: newCounters("paneherd_trigger_deliveries_total",
			"Actions on panes that took effect: a prompt DELIVERED, a dialog ANSWERED."),
		retries: newCounters("paneherd_trigger_retries_total",
			"Retries of submitting a prompt that was not acknowledged in time, over all actions."),
		timeouts: newCounters("paneherd_trigger_timeouts_total",
			"Actions that gave up waiting: ACK_TIMEOUT (prompt not taken), DEFER_TIMEOUT (a person kept typing)."),
		notifications: newCounters("paneherd_notifications_total",
			"Notifications delivered to a person, by event (needs-confirmation, finished, error, stalled, exited, test)."),
		notifyDrops: newCounters("paneherd_notification_drops_total",
			"Notifications a backend was behind for (its queue full: slow or hanging) and dropped, by backend."),
		restarts: newCounters("paneherd_worker_restarts_total",
			"Restarts of managed workers, by worker and why (exited, died, gone, ack-timeout, continued, other)."),
		drifts: newCounters("paneherd_reconcile_drifts_total",
			"Registry records that reconcile found no longer matching tmux, by what differed."),
	}
	s.panes = newPaneStates()
	s.work = newWork()
	s.families = []*family{&s.panes.family, &s.work.family, &s.attempts.family, &s.deliveries.family,
		&s.retries.family, &s.timeouts.family, &s.notifications.family, &s.notifyDrops.family, &s.restarts.family,
		&s.drifts.family}
	slices.SortFunc(s.families, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	for _, k := range triggerKinds {
		s.attempts.add(0, "kind", k)
		s.deliveries.add(0, "kind", k)
	}
	s.retries.add(0)
	for _, o := range sendTimeouts {
		s.timeouts.add(0, "kind", "send", "outcome", string(o))
	}
	return s
}

// Trigger counts one action on a pane that ended with outcome (an internal/outcome name)
// after retries retries of its submission.
func (s *Set) Trigger(kind, result string, retries int) {
	s.attempts.add(1, "kind", kind)
	switch outcome.Outcome(result) {
	case outcome.Delivered, outcome.Answered:
		s.deliveries.add(1, "kind", kind)
	case outcome.AckTimeout, outcome.DeferTimeout:
		s.timeouts.add(1, "kind", kind, "outcome", result)
	}
	if retries > 0 {
		s.retries.add(uint64(retries))
	}
}

// Notified counts a notification delivered to a person, by its kind (the event).
func (s *Set) Notified(kind string) { s.notifications.add(1, "kind", kind) }

// NotificationDropped counts a notification dropped for backend, which was behind.
func (s *Set) NotificationDropped(backend string) { s.notifyDrops.add(1, "backend", backend) }

// Restart counts a managed worker restarted, and why. The why label is a kind from a
// fixed set, not the text given, so a scraper's series stay few whatever the texts say:
// why may be a kind itself, or the supervisor's text, which starts as follows:
//
//	exited       "its process exited with status N"
//	died         "its process died (killed, or exit status unknown)"
//	gone         "its pane is gone"
//	ack-timeout  "a prompt was not taken"
//	continued    "a person continued it"
//	other        anything else
//
// The full text belongs in the worker's events, which keep it.
func (s *Set) Restart(worker, why string) {
	s.restarts.add(1, "why", restartKind(why), "worker", worker)
}

// restartWhys are the kinds of restart, with the start of the supervisor's text for each.
var restartWhys = []struct{ kind, text string }{
	{"exited", "its process exited"},
	{"died", "its process died"},
	{"gone", "its pane is gone"},
	{"ack-timeout", "a prompt was not taken"},
	{"continued", "a person continued"},
}

func restartKind(why string) string {
	for _, k := range restartWhys {
		if why == k.kind || strings.HasPrefix(why, k.text) {
			return k.kind
		}
	}
	return "other"
}

// Drift counts a registry record that reconcile found no longer matching tmux.
func (s *Set) Drift(kind string) { s.drifts.add(1, "kind", kind) }

// PaneStates makes f the source of the panes gauge: f is called once at each scrape and
// says how many panes are in each state. Every state shows, at 0 when f does not name it.
func (s *Set) PaneStates(f func() map[string]int) { s.panes.set(f) }

// WriteText writes every metric in the Prometheus text exposition format.
func (s *Set) WriteText(w io.Writer) error {
	if _, err := w.Write(s.text()); err != nil {
		return fmt.Errorf("metrics: write: %w", err)
	}
	return nil
}

// text is every family, sorted by name, each with its HELP and TYPE lines; a family with
// no series yet is left out.
func (s *Set) text() []byte {
	var b bytes.Buffer
	for _, f := range s.families {
		f.write(&b)
	}
	return b.Bytes()
}

// Handler serves the metrics to a Prometheus scraper (any path; Serve mounts it at
// /metrics).
func (s *Set) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(s.text()) // a scraper that hung up is no error of ours
	})
}
