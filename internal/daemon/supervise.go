package daemon

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/supervisor"
	"github.com/paneherd/paneherd/internal/wire"
)

// newSupervisor builds the supervisor of managed workers on the daemon's parts: panes as
// the watcher sees them, prompts through the queue (the path of `send`), keys through
// the delivery engine, notifications through the notifier.
func (d *Daemon) newSupervisor() *supervisor.Supervisor {
	s := supervisor.New(supervisor.DefaultConfig)
	s.Server, s.Store, s.Packs, s.Log = d.server, d.store, d.w.Packs, d.log.Logger
	s.Registry = d.cfg.Dir.Workers()
	s.Binary, _ = os.Executable()
	s.Pane = d.w.Pane
	s.Send = d.queue.send
	s.Press = d.engine.Press
	s.Notify = d.notifier.Offer
	s.Wake = func() { d.observer.Wake() }
	s.Replaced = d.queue.rebind
	s.Metrics = d.metrics
	d.engine.Phase = s.Phase
	audit := d.engine.Audit
	d.engine.Audit = func(t wire.Trigger) error {
		err := audit(t)
		s.Triggered(t)
		return err
	}
	return s
}

// supervisorConfig is the supervisor's part of the options; home is the person's home,
// the workspace when none is set.
func supervisorConfig(values options.Values, home string) supervisor.Config {
	c := supervisor.DefaultConfig
	c.Workspaces = nil
	for _, dir := range strings.Split(options.Workspaces.In(values), ":") {
		if dir = strings.TrimSpace(dir); dir != "" {
			c.Workspaces = append(c.Workspaces, expandHome(dir, home))
		}
	}
	if len(c.Workspaces) == 0 && home != "" {
		c.Workspaces = []string{home}
	}
	c.WorktreeDir = expandHome(options.WorktreeDir.In(values), home)
	c.NudgeEvery = options.NudgeEvery.In(values)
	c.Nudges = options.Nudges.In(values)
	c.RetireWait = options.RetireWait.In(values)
	c.HealthGap = options.HealthMin.In(values)
	c.Quiet = values.Delivery().Quiet
	return c
}

// expandHome reads a leading ~ as the home directory, as a person writes it in tmux.conf.
func expandHome(dir, home string) string {
	if dir == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return dir
}

// home is the person's home directory: the allowed workspace when none is set.
func (c Config) home() string {
	h, _ := os.UserHomeDir()
	return h
}
