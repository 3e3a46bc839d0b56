package daemon

import (
	"bytes"
	"errors"

	"github.com/paneherd/paneherd/internal/metrics"
	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/wire"
)

// newMetrics is the daemon's one Set: the watcher's panes are its gauge; delivery's
// audit and the notifier's record feed its counters (newEngine, newNotifier).
func (d *Daemon) newMetrics() *metrics.Set {
	m := metrics.New()
	m.PaneStates(d.w.States)
	m.WorkDone(d.workDone)
	return m
}

// workDone is what the daemon has made tmux and the disk do so far (paneherd_work_total):
// the control clients' commands and notifications, when it observes through control
// mode, and the watcher's commits, snapshots and pushes.
func (d *Daemon) workDone() []metrics.Work {
	commits, snapshots, pushes := d.w.Work()
	work := []metrics.Work{{Kind: "store_commit", Count: commits}, {Kind: "snapshot_write", Count: snapshots}, {Kind: "status_push", Count: pushes}}
	c, ok := d.observer.(*observe.ControlMode)
	if !ok {
		return work
	}
	commands, notifications, bytes := c.Counts().Snapshot()
	for name, n := range commands {
		work = append(work, metrics.Work{Kind: "tmux_command", Name: name, Count: n})
	}
	for kind, n := range notifications {
		work = append(work, metrics.Work{Kind: "tmux_notification", Name: kind, Count: n})
	}
	return append(work, metrics.Work{Kind: "tmux_output_bytes", Count: bytes})
}

// metricsText answers OpMetrics.
func (d *Daemon) metricsText() (wire.Metrics, error) {
	var b bytes.Buffer
	err := d.metrics.WriteText(&b)
	return wire.Metrics{Text: b.String()}, err
}

// serveMetrics serves the metrics over HTTP at addr (@paneherd-metrics-listen), at start
// and on reload: a new address replaces the old one, "" stops serving. An address that
// is not loopback is refused (metrics.ErrNotLoopback) with one line in the log.
func (d *Daemon) serveMetrics(addr string) {
	d.metricsMu.Lock()
	defer d.metricsMu.Unlock()
	if addr == d.metricsAddr && d.metricsServer != nil {
		return
	}
	d.stopMetricsLocked()
	d.metricsAddr = addr
	if addr == "" {
		return
	}
	srv, err := d.metrics.Serve(addr)
	switch {
	case errors.Is(err, metrics.ErrNotLoopback):
		d.log.Warn().Str("listen", addr).Err(err).Msg("@paneherd-metrics-listen refused: metrics are served on loopback only")
	case err != nil:
		d.log.Error().Str("listen", addr).Err(err).Msg("metrics not served")
	default:
		d.metricsServer = srv
		d.log.Info().Str("listen", srv.Addr()).Msg("serving metrics at http://" + srv.Addr() + "/metrics")
	}
}

// closeMetrics stops serving the metrics (shutdown).
func (d *Daemon) closeMetrics() {
	d.metricsMu.Lock()
	defer d.metricsMu.Unlock()
	d.stopMetricsLocked()
	d.metricsAddr = ""
}

func (d *Daemon) stopMetricsLocked() {
	if d.metricsServer == nil {
		return
	}
	if err := d.metricsServer.Close(); err != nil {
		d.log.Warn().Err(err).Msg("close metrics listener")
	}
	d.log.Info().Str("listen", d.metricsServer.Addr()).Msg("metrics no longer served")
	d.metricsServer = nil
}
