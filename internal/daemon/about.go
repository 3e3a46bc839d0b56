package daemon

import (
	"context"
	"os"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/wire"
)

// about answers OpAbout: what `paneherd doctor` reports of the daemon. The schema and
// the damaged records come from the open database, since no other process may open the
// file to read it.
func (d *Daemon) about(ctx context.Context) (wire.About, error) {
	schema, err := d.store.Schema()
	if err != nil {
		return wire.About{}, err
	}
	damaged, err := d.store.Damaged()
	if err != nil {
		return wire.About{}, err
	}
	return wire.About{PID: os.Getpid(), Version: d.cfg.Version, Started: d.started, Observer: d.observing, Schema: schema,
		Damaged: damaged, DB: d.cfg.Dir.DB(), Log: d.cfg.Dir.Log(), Bus: d.bus(ctx), Store: d.storeTrouble(),
		Notify: notify.BackendStatuses(d.notifier.Describe(ctx))}, nil
}

// storeTrouble is why the store refuses writes, or nil while it takes them.
func (d *Daemon) storeTrouble() *wire.StoreTrouble {
	failed, readOnly := d.w.StoreFailure(), d.store.ReadOnly()
	if failed == nil && readOnly == "" {
		return nil
	}
	t := &wire.StoreTrouble{ReadOnly: readOnly}
	if failed != nil {
		t.Error, t.Since, t.Waiting, t.Dropped = failed.Err.Error(), failed.Since, failed.Waiting, failed.Dropped
	}
	return t
}

// bus is the desktop bus as the daemon's notifier finds it: the daemon's environment,
// not the asker's, decides where its notifications go. tmux's environment is read afresh
// (the notifier trusts what it read for 30 s): what a client attaching now brought counts.
func (d *Daemon) bus(ctx context.Context) wire.BusFound {
	desktop, ok := d.notifier.Desktop.(notify.Desktop)
	if !ok {
		return wire.BusFound{Err: "the notifier has no desktop backend"}
	}
	desktop.Env, desktop.Whose = notify.TmuxEnv(d.server), "the daemon's"
	found, err := desktop.FindBus(ctx)
	if err != nil {
		return wire.BusFound{Err: err.Error()}
	}
	return wire.BusFound{Addr: found.Addr, From: found.From}
}
