package daemon

import (
	"context"

	"github.com/paneherd/paneherd/internal/fleet"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/remote"
)

// newFleet builds the fleet of @paneherd-hosts: a follow stream per host over the user's
// own ssh, each the host's master connection, its panes' changes of state through the
// notifier as this server's are, and a wake-up for showFleet at every change of its view.
func (d *Daemon) newFleet() *fleet.Fleet {
	d.ssh = &fleet.SSH{}
	f := fleet.New(d.ssh)
	f.Log = d.log.Logger
	d.fleetChanged = make(chan struct{}, 1)
	f.Changed = func() {
		select {
		case d.fleetChanged <- struct{}{}:
		default: // one wake-up waiting reads the newest view
		}
	}
	f.Transition = d.notifier.Transition
	return f
}

// setHosts gives the fleet the hosts of @paneherd-hosts, each reached with @paneherd-ssh
// and its control socket in the server's SSH directory. A host paneherd cannot make an
// ssh for is unreachable, and why.
func (d *Daemon) setHosts(values options.Values) {
	hosts := options.Hosts.In(values)
	conns, errs := map[string]*remote.Conn{}, map[string]error{}
	if len(hosts) > 0 {
		dir, err := d.cfg.Dir.CreateSSH()
		for _, h := range hosts {
			if err == nil {
				conns[h.Label], errs[h.Label] = remote.NewConn(h, dir, options.SSH.In(values))
			} else {
				errs[h.Label] = err
			}
		}
	}
	d.ssh.Set(conns, errs)
	d.fleet.SetHosts(hostLabels(hosts))
}

// showFleet publishes the fleet's view with this server's panes each time it changes,
// until ctx ends: off the fleet's goroutines, which must not wait on the disk or tmux.
func (d *Daemon) showFleet(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.fleetChanged:
			v := d.fleet.View()
			d.w.SetFleet(v.Hosts, v.Panes)
		}
	}
}

// hostLabels is the labels of hosts, which name them in the bar and in HOST:TARGET.
func hostLabels(hosts []remote.Host) []string {
	labels := make([]string, len(hosts))
	for i, h := range hosts {
		labels[i] = h.Label
	}
	return labels
}
