package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// OpSnapshot is a long poll: a snapshot the asker lacks comes at once, the next one the
// moment it is posted (to an asker already waiting for it), and none after the wait.
func TestBulletinAnswersAtOnceOnPostOrAfterTheWait(t *testing.T) {
	b := newBulletin()
	b.post(wire.Snapshot{Line: "one"})
	first := b.next(context.Background(), wire.SnapshotAsk{Wait: time.Hour})
	if first.Snapshot == nil || first.Snapshot.Line != "one" {
		t.Fatalf("first ask: %+v; want the snapshot at once", first)
	}
	start := time.Now()
	idle := b.next(context.Background(), wire.SnapshotAsk{After: first.Gen, Wait: 50 * time.Millisecond})
	if idle.Snapshot != nil || idle.Gen != first.Gen || time.Since(start) < 50*time.Millisecond {
		t.Errorf("nothing posted: %+v after %v; want none after the wait", idle, time.Since(start))
	}
	got := make(chan wire.Published)
	go func() { got <- b.next(context.Background(), wire.SnapshotAsk{After: first.Gen, Wait: time.Hour}) }()
	for deadline := time.Now().Add(5 * time.Second); b.askers() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ask never waited")
		}
	}
	b.post(wire.Snapshot{Line: "two"})
	select {
	case p := <-got:
		if p.Snapshot == nil || p.Snapshot.Line != "two" || p.Gen == first.Gen {
			t.Errorf("after a post: %+v", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a post did not answer the waiting ask")
	}
}
