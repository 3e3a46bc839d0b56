package herd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/remote"
	"github.com/paneherd/paneherd/internal/wire"
)

// Host is a machine of @paneherd-hosts as front ends act on it: the same paneherd
// command run there through the user's ssh (remote.Conn), riding on the daemon's
// connection to it when that is up. Nothing is sent, approved or waited for here: the
// host's own paneherd does it, with its checks and its outcomes.
type Host struct {
	remote.Host
	conn *remote.Conn
}

// Run runs paneherd with args on the host, stdin (nil: none) its stdin, its stdout and
// stderr passed on as they come. It returns nil when it exited 0, a *remote.ExitError
// with its exit code when it exited otherwise, a *remote.Failure (one line saying why)
// when it never ran or the link broke, or an error wrapping ctx's. ctx ending ends it:
// ssh goes, the session closes, and paneherd there ends as interrupted (it watches its
// stdout's reader).
func (h Host) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := h.conn.Command(ctx, args)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	return cmd.Run()
}

// TerminalCommand is the command line (ssh first) that runs paneherd with args on the
// host in the terminal it starts in: a person's, attached to a pane there.
func (h Host) TerminalCommand(args []string) []string {
	return h.conn.TerminalCommand(args)
}

// hostOf is h with @paneherd-ssh's options, its control socket where the daemon's
// connection to it is (paths.Dir.SSH): its commands are sessions on that connection
// while the daemon holds one, else connections of their own.
func (d Daemon) hostOf(h remote.Host, sshOptions string) (*Host, error) {
	// A control socket in a directory another user could write could be hers: the
	// prompt on stdin would go to her process.
	if err := d.Dir.Trusted(); err != nil {
		return nil, err
	}
	conn, err := remote.NewConn(h, d.Dir.SSH(), sshOptions)
	if err != nil {
		return nil, err
	}
	return &Host{Host: h, conn: conn}, nil
}

// fleet reads @paneherd-hosts and @paneherd-ssh from the tmux server.
func (d Daemon) fleet(ctx context.Context) ([]remote.Host, string, error) {
	values, err := options.Load(ctx, d.Server)
	if err != nil {
		return nil, "", fmt.Errorf("read @paneherd-hosts: %w", err)
	}
	return options.Hosts.In(values), options.SSH.In(values), nil
}

// Where says where target is: on a host of @paneherd-hosts (HOST:TARGET, see SplitTarget),
// with the target as the host's paneherd names it, or on this server (nil, and target
// unchanged). An error wraps wire.ErrNoTarget when target names no host and nothing
// here, or both.
func (d Daemon) Where(ctx context.Context, target string) (*Host, string, error) {
	if !strings.Contains(target, ":") {
		return nil, target, nil // no tmux call for a plain name or a pane id
	}
	hosts, sshOptions, err := d.fleet(ctx)
	if err != nil {
		return nil, target, nil // no tmux server to read the hosts from: this server's target, which says so
	}
	var here *wire.Snapshot
	if snap, err := d.Snapshot(); err == nil {
		here = &snap
	}
	h, rest, err := SplitTarget(target, hosts, here)
	if err != nil || h == nil {
		return nil, rest, err
	}
	host, err := d.hostOf(*h, sshOptions)
	return host, rest, err
}

// SplitTarget reads a target as HOST:TARGET or as this server's. The part before the
// first colon is a host when it is a label of hosts (@paneherd-hosts, case aside); the
// rest, which may hold colons, is the target as that host's paneherd names it. Otherwise
// the whole target is this server's (session:window.pane, or a name with a colon).
//
// here is this server's snapshot, nil when no daemon runs here. Knowing it:
//   - a label that is also a session here, or a target that is also a pane's name here,
//     is refused, saying how to name either;
//   - a part before the colon that is neither a host nor a session here, when no pane
//     here has the whole target for its name, is refused, saying to add the host.
//
// A nil host is this server's target. Errors wrap wire.ErrNoTarget.
func SplitTarget(target string, hosts []remote.Host, here *wire.Snapshot) (*remote.Host, string, error) {
	prefix, rest, ok := strings.Cut(target, ":")
	if !ok {
		return nil, target, nil
	}
	h := hostLabelled(hosts, prefix)
	local := here != nil && namedHere(here.Panes, prefix, target)
	switch {
	case h != nil && local:
		return nil, "", fmt.Errorf("%w: %q: %s is a host of @paneherd-hosts and this server's too (a session, or a pane's name): "+
			"name this server's pane by its id (%%3), or rename the session (tmux rename-session) to reach the host's", wire.ErrNoTarget, target, prefix)
	case h != nil && rest == "":
		return nil, "", fmt.Errorf("%w: %q: give the pane on %s after the colon: %s:NAME, %s:%%3 or %s:session:window.pane",
			wire.ErrNoTarget, target, h.Label, h.Label, h.Label, h.Label)
	case h != nil:
		return h, rest, nil
	case here != nil && !local:
		return nil, "", notAHost(prefix, hosts)
	}
	return nil, target, nil
}

// namedHere: a pane here is in the session prefix, or is called target.
func namedHere(panes []wire.Pane, prefix, target string) bool {
	for _, p := range panes {
		if p.Session == prefix || p.Name == target {
			return true
		}
	}
	return false
}

func hostLabelled(hosts []remote.Host, label string) *remote.Host {
	for i := range hosts {
		if strings.EqualFold(hosts[i].Label, label) {
			return &hosts[i]
		}
	}
	return nil
}

// notAHost says that label names no host, and how to make it one.
func notAHost(label string, hosts []remote.Host) error {
	words := make([]string, len(hosts))
	for i, h := range hosts {
		words[i] = h.Dest
		if h.Port != 0 {
			words[i] += ":" + strconv.Itoa(h.Port)
		}
	}
	return fmt.Errorf("%w: %s is not a host of @paneherd-hosts, nor a session here: to act on that machine, add it: "+
		"tmux set -g @paneherd-hosts %s", wire.ErrNoTarget, label, remote.Quote(strings.Join(append(words, label), " ")))
}

// TargetOf is how a pane is named across hosts: its id here (%3), HOST:%3 on a host of
// the fleet.
func TargetOf(p wire.Pane) string {
	if p.Host == "" {
		return p.ID
	}
	return p.Host + ":" + p.ID
}
