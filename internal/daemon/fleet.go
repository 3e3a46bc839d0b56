package daemon

import (
	"context"

	"github.com/paneherd/paneherd/internal/fleet"
	"github.com/paneherd/paneherd/internal/remote"
)

// newFleet builds the fleet of @paneherd-hosts: a follow stream per host over the user's
// own ssh, its panes' changes of state through the notifier as this server's are, and a
// wake-up for showFleet at every change of its view.
func (d *Daemon) newFleet() *fleet.Fleet {
	f := fleet.New(fleet.Exec{Command: followOverSSH})
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

// followOverSSH is the command that opens host's follow stream: the user's ssh, which
// never prompts (BatchMode) and reads nothing from this side.
func followOverSSH(host string) []string {
	return []string{"ssh", "-o", "BatchMode=yes", "-T", "-n", "--", host, "paneherd", "follow", "--json"}
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
