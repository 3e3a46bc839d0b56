package herd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// FollowHeartbeat is how often `paneherd follow` says it is alive while nothing
// changes; a reader that hears nothing for two is not hearing the daemon.
const FollowHeartbeat = 5 * time.Second

// Follow hands write the daemon's panes as the follow protocol's lines (wire.FollowLine):
// the whole snapshot, then a line per change the daemon publishes, at once, and a
// heartbeat each heartbeat while nothing changes. It learns of changes by asking the
// daemon for the snapshot after the one it has (OpSnapshot), which the daemon answers
// when it publishes one or after a heartbeat: a question per heartbeat while idle. A
// daemon that goes away is started again with binary. Follow ends with ctx (nil), or
// with write's error (the reader went).
func (d Daemon) Follow(ctx context.Context, binary, version string, heartbeat time.Duration, write func(wire.FollowLine) error) error {
	// A daemon just started may not have handed its first snapshot to the socket yet.
	pub, err := d.nextSnapshot(ctx, binary, 0, heartbeat)
	if err != nil {
		return err
	}
	panes := pub.Snapshot.Panes // this server's: the fleet's are in Remote, never sent on
	err = write(wire.FollowLine{Type: wire.FollowSnapshot, Protocol: wire.FollowProtocol, Version: version,
		HeartbeatMS: heartbeat.Milliseconds(), At: pub.Snapshot.Updated, Panes: panes})
	last := time.Now()
	for err == nil {
		gen := pub.Gen
		if pub, err = d.nextSnapshot(ctx, binary, gen, heartbeat-time.Since(last)); err != nil {
			break
		}
		line, changed := wire.FollowLine{Type: wire.FollowHeartbeat, At: time.Now()}, false
		if pub.Snapshot != nil {
			now := pub.Snapshot.Panes
			line, changed = wire.FollowDiff(panes, now, pub.Snapshot.Updated)
			panes = now
		} else {
			pub.Gen = gen
		}
		if changed || time.Since(last) >= heartbeat {
			err, last = write(line), time.Now()
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// nextSnapshot asks for the snapshot after gen, waiting at most wait. A daemon that
// does not answer (gone, or being restarted) is started, once per question.
func (d Daemon) nextSnapshot(ctx context.Context, binary string, gen uint64, wait time.Duration) (wire.Published, error) {
	ask := wire.SnapshotAsk{After: gen, Wait: max(wait, 0)}
	pub, err := d.askSnapshot(ctx, ask)
	if errors.Is(err, wire.ErrNoDaemon) {
		if _, err = d.Start(ctx, binary); err != nil {
			return pub, err
		}
		pub, err = d.askSnapshot(ctx, ask)
	}
	if err == nil && gen == 0 && pub.Snapshot == nil {
		err = errors.New("the daemon answered with no snapshot")
	}
	return pub, err
}

func (d Daemon) askSnapshot(ctx context.Context, ask wire.SnapshotAsk) (wire.Published, error) {
	ctx, cancel := context.WithTimeout(ctx, ask.Wait+askLimit)
	defer cancel()
	pub, err := call[wire.Published](ctx, d, wire.Request{Op: wire.OpSnapshot}, ask)
	if errors.Is(err, wire.ErrUnknownOp) {
		return pub, fmt.Errorf("the daemon running is older than this paneherd and cannot be followed: "+
			"restart it (paneherd restart): %w", err)
	}
	return pub, err
}
