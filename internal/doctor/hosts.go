package doctor

import (
	"fmt"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/fleet"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/remote"
	"github.com/paneherd/paneherd/internal/wire"
)

// checkHosts says, a line per host of @paneherd-hosts, how the daemon follows it: its
// view in the snapshot, never a connection of doctor's own.
func (d Doctor) checkHosts(values options.Values) []Check {
	hosts := options.Hosts.In(values)
	if len(hosts) == 0 {
		return nil
	}
	hd, err := herd.Of(d.Server, d.Getenv)
	if err != nil {
		return nil // the daemon line said so
	}
	snap, err := hd.Snapshot()
	if err != nil {
		return []Check{warn("hosts", fmt.Sprintf("%d in @paneherd-hosts, not followed: %v", len(hosts), err), "start the daemon: 'paneherd start'")}
	}
	byName := map[string]wire.Host{}
	for _, h := range snap.Hosts {
		byName[h.Name] = h
	}
	panes := map[string]int{}
	for _, p := range snap.Remote {
		panes[p.Host]++
	}
	var checks []Check
	for _, h := range hosts {
		host, ok := byName[h.Label]
		if !ok {
			host = wire.Host{Name: h.Label, State: wire.HostConnecting}
		}
		checks = append(checks, hostCheck(host, panes[h.Label]))
	}
	return checks
}

// hostCheck is one host's line: ok when up, else what is wrong and what to do.
func hostCheck(h wire.Host, panes int) Check {
	name := "host:" + h.Name
	switch h.State {
	case wire.HostUp:
		return ok(name, fmt.Sprintf("up, paneherd %s, %s", orUnknown(h.Version), plural(panes, "pane")))
	case wire.HostConnecting:
		return warn(name, "connecting", "run 'paneherd hosts' in a moment; ssh gives up after "+spoken(remote.ConnectTimeout))
	case wire.HostStale:
		return warn(name, fmt.Sprintf("stale: its heartbeats stopped coming, its %s shown as last heard", plural(panes, "pane")),
			"the link or the host is slow or gone: ssh notices within "+spoken(remote.DeadLinkNoticed)+" and paneherd connects again by itself")
	case wire.HostIncompatible:
		return fail(name, h.Why, incompatibleFix(h.Why))
	}
	return fail(name, "unreachable: "+h.Why, fmt.Sprintf("paneherd tries again by itself, %s to %s apart; 'paneherd hosts' shows it",
		spoken(fleet.DefaultTiming.Backoff), spoken(fleet.DefaultTiming.MaxBackoff)))
}

// incompatibleFix says which side to update.
func incompatibleFix(why string) string {
	if strings.HasSuffix(why, "too new") {
		return "update paneherd here to the host's version, or the host's back to this one's"
	}
	return "update paneherd on the host to this one's version (install.sh there), then it reconnects by itself"
}

func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// spoken is a whole number of seconds or minutes as a line of doctor's says it: "20 s",
// "1 min".
func spoken(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return fmt.Sprintf("%d s", d/time.Second)
}
