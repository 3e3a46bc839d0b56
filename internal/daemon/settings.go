package daemon

import (
	"context"
	"errors"
	"os"
	"strconv"
	"time"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/observe"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/packs"
	"github.com/paneherd/paneherd/statusline"
)

// observer is how the daemon looks at tmux: polling, or control mode.
type observer interface {
	observe.Observer
	Wake()
	SetTick(time.Duration)
	Close()
}

// newObserver starts the observer the options ask for; control mode falls back to
// polling when it cannot attach.
func (d *Daemon) newObserver(values options.Values) observer {
	d.observerKind = options.Observer.In(values)
	d.observing = "poll"
	poll := observe.NewPoller(d.server, d.cfg.tick(values))
	if d.observerKind != "control" {
		return poll
	}
	c, err := observe.StartControlMode(d.server)
	if err != nil {
		d.log.Warn().Err(err).Msg("control mode unavailable; polling instead")
		return poll
	}
	c.Log = d.log.Logger
	d.log.Info().Msg("observing through control mode")
	// Everything else the daemon asks tmux goes through the same client: no process.
	d.server.Via = c
	d.observing = "control"
	return c
}

// newNotifier builds the notifier: desktop through beeep with tmux's environment as a
// source of the bus address, tmux messages as the fallback, the extra backends built
// from the options at each apply (notify.Extras, with this server and host), history in
// the store, those delivered and those a backend was behind for counted in the metrics.
func (d *Daemon) newNotifier() *notify.Notifier {
	s := d.server
	var n *notify.Notifier
	tmuxBackend := notify.Tmux{Server: s, Bell: func() bool { return n.Bell() }}
	n = notify.New(notify.Desktop{Env: notify.TmuxEnv(s), UID: os.Getuid()}, tmuxBackend, notify.Config{})
	n.Env = notify.ExtraEnv{Server: s, Host: hostname()}
	n.Log = d.log.Logger
	n.Clients = func(ctx context.Context) ([]notify.Client, error) { return notify.Clients(ctx, s) }
	n.Explain = d.explain
	n.Dropped = d.metrics.NotificationDropped
	n.Record = func(sent notify.Sent) {
		if sent.Delivered() {
			d.metrics.Notified(string(sent.Event))
		}
		if err := d.store.AddNotification(notify.HistoryRecord(sent)); err != nil {
			d.log.Error().Err(err).Msg("record notification")
		}
	}
	return n
}

// hostname names this machine in what notifications take off it ("" when it has none).
func hostname() string {
	h, _ := os.Hostname()
	return h
}

// recallNotifications hands the notifier what earlier daemons notified: a daemon that
// is restarted (a crash, a kill, an upgrade) must not notify again what was just notified.
func (d *Daemon) recallNotifications() {
	past, err := d.store.Notifications("", 0)
	if err != nil {
		d.log.Warn().Err(err).Msg("earlier notifications not recalled: some may come again")
		return
	}
	d.notifier.Recall(past)
}

// reload re-reads the options (the plugin's reload event).
func (d *Daemon) reload() {
	values, err := options.Load(context.Background(), d.server)
	if err != nil {
		d.log.Warn().Err(err).Msg("reload options")
		return
	}
	d.apply(values)
	d.log.Info().Msg("options reloaded")
}

// apply takes the user's options, at start and on every reload: rendering, push or job
// mode, notifications, tick, log level and where metrics are served.
func (d *Daemon) apply(values options.Values) {
	for _, p := range values.Problems {
		d.log.Warn().Str("option", p).Msg("bad option value")
	}
	d.log.SetLevel(d.cfg.level(values))
	if kind := options.Observer.In(values); kind != d.observerKind {
		d.log.Warn().Str("observer", kind).Msg("@paneherd-observer changed: it takes effect when the daemon restarts (paneherd restart)")
	}
	d.observer.SetTick(d.cfg.tick(values))
	d.notifier.SetConfig(values.Notify())
	d.engine.SetConfig(values.Delivery())
	d.applyPolicy(values)
	d.sup.SetConfig(supervisorConfig(values, d.cfg.home()))
	d.applyModel(values)
	d.pushing.Store(values.Push())
	if !values.Push() {
		d.clearStatus()
	}
	d.w.SetRender(values.StatusLine())
	d.setHosts(values)
	d.serveMetrics(options.MetricsListen.In(values))
}

// push sets the status option; tmux redraws status lines that show it at once. The
// watcher waits for it: the server's Timeout bounds it. It renews the lease too when little of
// it is left, in the same call: the status bar trusts a leased line without forking its
// guard, so the redraws pushes cause cost no process.
func (d *Daemon) push(line string) error {
	if !d.pushing.Load() {
		return nil
	}
	set := [][]string{{"set-option", "-gq", plugin.StatusOption, tmux.LiteralArg(line)}}
	now := time.Now().Unix()
	until := d.lease.Load()
	renew := until-now < int64(plugin.LeaseRenew/time.Second)
	if renew {
		until = now + int64(plugin.LeaseTerm/time.Second)
		// The lease first: a redraw between the two already finds it.
		set = append([][]string{{"set-option", "-gq", plugin.LeaseOption, strconv.FormatInt(until, 10)}}, set...)
	}
	err := d.setStatus("push status line", set)
	if err == nil && renew {
		d.lease.Store(until)
	}
	return err
}

// clearStatus removes the pushed line and its lease: job mode shows no option.
func (d *Daemon) clearStatus() {
	d.setStatus("clear status line", [][]string{
		{"set-option", "-gqu", plugin.StatusOption}, {"set-option", "-gqu", plugin.LeaseOption}})
	d.lease.Store(0)
}

// showOff replaces the pushed line with the off marker as the daemon stops, so the bar
// says so at once rather than showing stale badges or nothing.
func (d *Daemon) showOff() {
	if !d.pushing.Load() {
		return // job mode: the bar's job says so itself
	}
	d.setStatus("show off", [][]string{{"set-option", "-gq", plugin.StatusOption, statusline.Off}})
}

// setStatus runs the status commands, bounded by the server's Timeout. A server that has
// gone needs no status line, and is no news.
func (d *Daemon) setStatus(what string, cmds [][]string) error {
	_, err := d.server.Run(context.Background(), nil, tmux.Chain(cmds)...)
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		d.log.Warn().Err(err).Msg(what)
	}
	return err
}

// paneProcesses lists a pane's processes for pack detection.
func paneProcesses(pid int) []packs.Process {
	procs, err := proc.Descendants(pid)
	if err != nil {
		return nil
	}
	return packs.ProcessesOf(procs)
}
