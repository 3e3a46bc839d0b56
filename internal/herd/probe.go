package herd

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/remote"
)

// Remote is a host of @paneherd-hosts and the way to it from this server: Conn's
// commands are sessions on the connection this server's daemon holds to the host (its
// follow stream) while it holds one, else connections of their own. Err says why there
// is no Conn (@paneherd-ssh cannot be used).
type Remote struct {
	Host remote.Host
	Conn *remote.Conn
	Err  error
}

// Remotes are the hosts of @paneherd-hosts, as the server's options name them now, each
// with @paneherd-ssh's options.
func (d Daemon) Remotes(ctx context.Context) ([]Remote, error) {
	hosts, sshOptions, err := d.fleet(ctx)
	if err != nil {
		return nil, err
	}
	var out []Remote
	for _, h := range hosts {
		r := Remote{Host: h}
		if host, err := d.hostOf(h, sshOptions); err != nil {
			r.Err = err
		} else {
			r.Conn = host.conn
		}
		out = append(out, r)
	}
	return out, nil
}

// Probe is what one cheap command run on a host says: paneherd's version there, and
// how long it took.
type Probe struct {
	// Version is what `paneherd version` printed there, without "paneherd ".
	Version string
	// RTT is how long `paneherd version` took, from ssh's start to its end: a session on
	// the daemon's connection (Shared) costs the network's round trips, the remote login
	// shell and paneherd's start; a connection of its own costs the login too.
	RTT    time.Duration
	Shared bool  // it ran over the daemon's connection
	Err    error // it could not run (remote.Failure: one line saying why)
}

// ProbeHost runs `paneherd version` on c's host.
func ProbeHost(ctx context.Context, c *remote.Conn) Probe {
	_, err := c.Master(ctx)
	p := Probe{Shared: err == nil}
	var out bytes.Buffer
	cmd := c.Command(ctx, []string{"version"})
	cmd.Stdout = &out
	began := time.Now()
	if p.Err = cmd.Run(); p.Err != nil {
		return p
	}
	p.RTT = time.Since(began)
	line, _, _ := strings.Cut(out.String(), "\n")
	if v, ok := strings.CutPrefix(line, "paneherd "); ok && len(v) <= 40 {
		p.Version = strings.TrimSpace(v)
	}
	return p
}
