package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// fakeDialer hands the test each stream the fleet opens; Dial fails with fail when set.
type fakeDialer struct {
	streams chan *fakeStream
	mu      sync.Mutex
	fail    error
}

// fakeStream is one stream: what the test writes is what the fleet reads.
type fakeStream struct {
	host    string
	w       *io.PipeWriter
	waitErr chan error
	ended   chan struct{} // closed when the fleet ends it (its ctx)
}

func newFakeDialer() *fakeDialer { return &fakeDialer{streams: make(chan *fakeStream, 100)} }

func (d *fakeDialer) failWith(err error) {
	d.mu.Lock()
	d.fail = err
	d.mu.Unlock()
}

func (d *fakeDialer) Dial(ctx context.Context, host string) (io.ReadCloser, func() error, error) {
	d.mu.Lock()
	fail := d.fail
	d.mu.Unlock()
	if fail != nil {
		return nil, nil, fail
	}
	r, w := io.Pipe()
	s := &fakeStream{host: host, w: w, waitErr: make(chan error, 1), ended: make(chan struct{})}
	context.AfterFunc(ctx, func() { close(s.ended); w.Close() }) // a killed program's end
	d.streams <- s
	return r, func() error {
		select {
		case err := <-s.waitErr:
			return err
		default:
			return nil
		}
	}, nil
}

func (s *fakeStream) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.w, line+"\n"); err != nil {
		t.Fatalf("write to the fleet: %v", err)
	}
}

func (s *fakeStream) sendLine(t *testing.T, l wire.FollowLine) {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	s.send(t, string(b))
}

// end ends the stream as a program exiting with err would.
func (s *fakeStream) end(err error) {
	s.waitErr <- err
	s.w.Close()
}

func (d *fakeDialer) next(t *testing.T) *fakeStream {
	t.Helper()
	select {
	case s := <-d.streams:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("the fleet opened no stream")
	}
	return nil
}

func hello(beat time.Duration, panes ...wire.Pane) wire.FollowLine {
	return wire.FollowLine{Type: wire.FollowSnapshot, Protocol: wire.FollowProtocol, Version: "0.4.0",
		HeartbeatMS: beat.Milliseconds(), At: time.Now(), Panes: panes}
}

// testTiming is quick, with no backoff to speak of unless a test sets one.
var testTiming = Timing{Backoff: time.Millisecond, MaxBackoff: time.Millisecond, ResetAfter: time.Hour, DropAfter: 10 * time.Second}

// runFleet runs a fleet of hosts over d until the test ends.
func runFleet(t *testing.T, d Dialer, timing Timing, hosts ...string) *Fleet {
	t.Helper()
	f := New(d)
	f.Timing = timing
	f.SetHosts(hosts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return 5s after its ctx ended")
		}
	})
	return f
}

// await polls the fleet's view until cond holds.
func await(t *testing.T, f *Fleet, what string, cond func(View) bool) View {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v := f.View()
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s; view: %+v", what, v)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func hostIs(state string) func(View) bool {
	return func(v View) bool { return len(v.Hosts) == 1 && v.Hosts[0].State == state }
}

func TestFleetTakesSnapshotAndChanges(t *testing.T) {
	d := newFakeDialer()
	f := New(d)
	f.Timing = testTiming
	var mu sync.Mutex
	var seen []string
	f.Transition = func(before wire.Pane, tr wire.Transition) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s/%s %s->%s", before.Host, before.Name, tr.From, tr.To))
		mu.Unlock()
	}
	f.SetHosts([]string{"devbox"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx)
	if v := f.View(); v.Hosts[0].State != wire.HostConnecting {
		t.Errorf("before its stream: %+v; want connecting", v.Hosts)
	}
	s := d.next(t)
	if s.host != "devbox" {
		t.Errorf("dialed %q", s.host)
	}
	s.sendLine(t, hello(time.Minute, wire.Pane{ID: "%1", Name: "api", State: "BUSY"}, wire.Pane{ID: "%2", Name: "web", State: "READY"}))
	v := await(t, f, "up", hostIs(wire.HostUp))
	if len(v.Panes) != 2 || v.Panes[0].Host != "devbox" || v.Hosts[0].Version != "0.4.0" {
		t.Fatalf("view %+v: want both panes, on devbox", v)
	}
	s.sendLine(t, wire.FollowLine{Type: wire.FollowChange, Panes: []wire.Pane{{ID: "%1", Name: "api", State: "NEEDS_CONFIRMATION"}}, Gone: []string{"%2"}})
	v = await(t, f, "the change taken", func(v View) bool { return len(v.Panes) == 1 && v.Panes[0].State == "NEEDS_CONFIRMATION" })
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "devbox/api BUSY->NEEDS_CONFIRMATION" {
		t.Errorf("transitions %q; want api's, named with its host", seen)
	}
}

// A remote shell's rc files print before paneherd does: those lines are skipped, JSON
// or not; the first protocol line is the stream's start.
func TestFleetSkipsNoiseBeforeTheFirstLine(t *testing.T) {
	d := newFakeDialer()
	f := runFleet(t, d, testTiming, "devbox")
	s := d.next(t)
	for _, noise := range []string{"pyenv: command not found", "", "{}", `{"type":"heartbeat"}`, `{"type":"snapshot"}`, "\x1b[31m#(touch x)"} {
		s.send(t, noise)
	}
	s.sendLine(t, hello(time.Minute, wire.Pane{ID: "%1", Name: "api", State: "READY"}))
	v := await(t, f, "up", hostIs(wire.HostUp))
	if len(v.Panes) != 1 {
		t.Errorf("panes %+v", v.Panes)
	}
}

// After the first line, a line that is not the protocol's ends the stream as an error;
// nothing of it is shown, and the host is dialed again.
func TestFleetGarbageAfterTheFirstLineEndsTheStream(t *testing.T) {
	for _, garbage := range []string{"#[fg=red]#(touch x)", `{"type":"gossip"}`, `{"type":"change","panes":[{"pane_id":"%1","state":"#(touch x)"}]}`,
		`{"type":"change","panes":[{"pane_id":"%1;touch /tmp/x;","state":"READY"}]}`, `{"type":"change","panes":[{"pane_id":"%","state":"READY"}]}`,
		`{"type":"change","panes":[{"pane_id":"devbox:%2","state":"READY"}]}`, `{"type":"snapshot","protocol":1,"version":"0.4.0"}`} {
		t.Run(garbage, func(t *testing.T) {
			d := newFakeDialer()
			f := runFleet(t, d, testTiming, "devbox")
			s := d.next(t)
			s.sendLine(t, hello(time.Minute, wire.Pane{ID: "%1", Name: "api", State: "READY"}))
			await(t, f, "up", hostIs(wire.HostUp))
			s.send(t, garbage)
			v := await(t, f, "unreachable", hostIs(wire.HostUnreachable))
			if why := v.Hosts[0].Why; strings.Contains(why, "touch") || strings.Contains(why, "gossip") || why == "" {
				t.Errorf("why %q: want a reason that quotes nothing of the line", why)
			}
			for _, p := range v.Panes {
				if p.State != "READY" || p.Name != "api" {
					t.Errorf("a pane shows what the garbage said: %+v", p)
				}
			}
			d.next(t) // dialed again
		})
	}
}

func TestFleetIncompatible(t *testing.T) {
	t.Run("a newer protocol", func(t *testing.T) {
		d := newFakeDialer()
		f := runFleet(t, d, testTiming, "devbox")
		d.next(t).send(t, `{"type":"snapshot","protocol":2,"version":"0.9.1","panes":"a shape of its own"}`)
		v := await(t, f, "incompatible", hostIs(wire.HostIncompatible))
		if v.Hosts[0].Why != "paneherd 0.9.1 too new" {
			t.Errorf("why %q", v.Hosts[0].Why)
		}
	})
	t.Run("a paneherd with no follow", func(t *testing.T) {
		d := newFakeDialer()
		f := runFleet(t, d, testTiming, "devbox")
		d.next(t).end(errors.New(`paneherd: unknown command "follow" (exit status 2)`))
		v := await(t, f, "incompatible", hostIs(wire.HostIncompatible))
		if v.Hosts[0].Why != noFollow {
			t.Errorf("why %q", v.Hosts[0].Why)
		}
	})
	t.Run("an older protocol", func(t *testing.T) {
		err := compatible(firstLine{Protocol: wire.FollowOldest - 1, Version: "0.3"})
		if err == nil || err.Error() != "paneherd 0.3 too old" {
			t.Errorf("compatible = %v; want paneherd 0.3 too old", err)
		}
	})
}

func TestFleetUnreachableSaysWhy(t *testing.T) {
	d := newFakeDialer()
	d.failWith(errors.New("ssh: Could not resolve hostname devbox"))
	f := runFleet(t, d, testTiming, "devbox")
	v := await(t, f, "unreachable", hostIs(wire.HostUnreachable))
	if v.Hosts[0].Why != "ssh: Could not resolve hostname devbox" {
		t.Errorf("why %q", v.Hosts[0].Why)
	}
	t.Run("what wrote the stream says why it ended", func(t *testing.T) {
		d := newFakeDialer()
		f := runFleet(t, d, testTiming, "devbox")
		d.next(t).end(errors.New("paneherd: no tmux server runs at /tmp/tmux-0/default (start tmux first) (exit status 1)"))
		v := await(t, f, "unreachable", hostIs(wire.HostUnreachable))
		if !strings.HasPrefix(v.Hosts[0].Why, "paneherd: no tmux server runs") {
			t.Errorf("why %q", v.Hosts[0].Why)
		}
	})
}

// A host whose heartbeats stop is stale (its panes as last heard), then, DropAfter after
// its last line, its panes are dropped and its silent stream ended; heartbeats keep it up.
// A machine that stalls the test between two heartbeats for two beats makes the host
// stale rightly: only a host stale sooner than that after a heartbeat is an error.
func TestFleetHeartbeatMissedStaleThenDropped(t *testing.T) {
	const beat = 100 * time.Millisecond
	timing := testTiming
	timing.DropAfter = time.Second
	d := newFakeDialer()
	f := runFleet(t, d, timing, "devbox")
	s := d.next(t)
	s.sendLine(t, hello(beat, wire.Pane{ID: "%1", Name: "api", State: "BUSY"}))
	await(t, f, "up", hostIs(wire.HostUp))
	// The fleet restarts its timers after it reads a line, so no sooner than the line's
	// send began: that is when a line was last heard, at the earliest.
	var lastLine time.Time
	for end := time.Now().Add(6 * beat); time.Now().Before(end); time.Sleep(beat / 4) {
		sent := time.Now()
		s.sendLine(t, wire.FollowLine{Type: wire.FollowHeartbeat})
		if v := f.View(); v.Hosts[0].State != wire.HostUp && time.Since(lastLine) < missedBeats*beat {
			t.Fatalf("heartbeats coming, the one before %v ago, the host is %s", time.Since(lastLine), v.Hosts[0].State)
		}
		lastLine = sent
	}
	v := await(t, f, "stale", hostIs(wire.HostStale))
	if since := time.Since(lastLine); since < missedBeats*beat {
		t.Errorf("stale %v after the last line; want at least %d beats", since, missedBeats)
	}
	if len(v.Panes) != 1 {
		t.Errorf("stale host's panes: %+v; want them kept, as last heard", v.Panes)
	}
	lastLine = time.Now()
	s.sendLine(t, wire.FollowLine{Type: wire.FollowHeartbeat})
	await(t, f, "up again at a heartbeat", hostIs(wire.HostUp))
	v = await(t, f, "dropped", func(v View) bool { return len(v.Panes) == 0 })
	if since := time.Since(lastLine); since < timing.DropAfter {
		t.Errorf("dropped %v after the last line; want %v", since, timing.DropAfter)
	}
	select {
	case <-s.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the silent stream was not ended")
	}
	v = await(t, f, "unreachable", hostIs(wire.HostUnreachable))
	if v.Hosts[0].Why != errSilent.Error() {
		t.Errorf("why %q", v.Hosts[0].Why)
	}
	d.next(t) // dialed again
}

// The wait before a host is dialed again doubles from Backoff to MaxBackoff, and starts
// over after a stream that was up for ResetAfter.
func TestFleetBackoffDoublesToItsCapAndResets(t *testing.T) {
	d := newFakeDialer()
	d.failWith(errors.New("refused"))
	f := New(d)
	f.Timing = Timing{Backoff: time.Second, MaxBackoff: time.Minute, ResetAfter: 50 * time.Millisecond, DropAfter: time.Minute}
	waits := make(chan time.Duration)
	f.sleep = func(ctx context.Context, d time.Duration) bool {
		select {
		case waits <- d:
			return true
		case <-ctx.Done():
			return false
		}
	}
	f.SetHosts([]string{"devbox"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	next := func() time.Duration {
		select {
		case w := <-waits:
			return w
		case <-time.After(5 * time.Second):
			t.Fatal("no wait")
		}
		return 0
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}
	for i, w := range want {
		if got := next(); got != w*time.Second {
			t.Fatalf("wait %d: %v; want %v", i, got, w*time.Second)
		}
	}
	// A stream up for ResetAfter: the next wait is Backoff again.
	d.failWith(nil)
	go func() {
		s := d.next(t)
		s.sendLine(t, hello(10*time.Millisecond))
		time.Sleep(80 * time.Millisecond)
		s.end(nil)
	}()
	if got := next(); got != time.Second {
		t.Errorf("after a stream up for longer than ResetAfter: wait %v; want %v", got, time.Second)
	}
}

// Hosts set again: the dropped one's stream ends, a new one is dialed, the order is
// the option's.
func TestFleetSetHosts(t *testing.T) {
	d := newFakeDialer()
	f := runFleet(t, d, testTiming, "a", "b")
	first := map[string]*fakeStream{}
	for range 2 {
		s := d.next(t)
		first[s.host] = s
	}
	f.SetHosts([]string{"c", "b"})
	select {
	case <-first["a"].ended:
	case <-time.After(5 * time.Second):
		t.Fatal("a's stream goes on after a left the hosts")
	}
	if s := d.next(t); s.host != "c" {
		t.Errorf("dialed %s; want c", s.host)
	}
	v := f.View()
	if len(v.Hosts) != 2 || v.Hosts[0].Name != "c" || v.Hosts[1].Name != "b" {
		t.Errorf("hosts %+v; want c, b", v.Hosts)
	}
}

// A host's texts are shown here as this server's are: cleaned of what would break a
// line or a terminal (ESC, newlines, bidirectional controls) and cut short, in the
// snapshot and in each change.
func TestFleetCleansWhatAHostSays(t *testing.T) {
	d := newFakeDialer()
	f := runFleet(t, d, testTiming, "devbox")
	s := d.next(t)
	dirty := "a\x1b]0;pwned\x07\x1b[31mb\nc\u202ed\x00"
	pane := wire.Pane{ID: "%1", State: "BUSY", Name: dirty, Session: dirty, Window: dirty, Summary: dirty,
		Command: dirty, CWD: dirty + strings.Repeat("x", 5000), Pack: dirty, Rule: dirty, Witness: dirty, Server: dirty}
	first := hello(time.Minute, pane)
	first.Version = dirty
	s.sendLine(t, first)
	v := await(t, f, "up", hostIs(wire.HostUp))
	checkClean(t, "the snapshot's", v.Panes)
	if version := v.Hosts[0].Version; strings.ContainsAny(version, "\x1b\x07\n\x00\u202e") {
		t.Errorf("version %q: control characters kept", version)
	}
	pane.State, pane.Name = "READY", "\x1b[2Jchanged"
	s.sendLine(t, wire.FollowLine{Type: wire.FollowChange, Panes: []wire.Pane{pane}})
	v = await(t, f, "the change taken", func(v View) bool { return len(v.Panes) == 1 && v.Panes[0].State == "READY" })
	checkClean(t, "the change's", v.Panes)
}

func checkClean(t *testing.T, which string, panes []wire.Pane) {
	t.Helper()
	if len(panes) != 1 {
		t.Fatalf("%s panes %+v", which, panes)
	}
	p := panes[0]
	for name, text := range map[string]string{"name": p.Name, "session": p.Session, "window": p.Window, "summary": p.Summary,
		"command": p.Command, "cwd": p.CWD, "pack": p.Pack, "rule": p.Rule, "witness": p.Witness, "server": p.Server, "state": p.State} {
		if strings.ContainsAny(text, "\x1b\x07\n\x00\u202e") {
			t.Errorf("%s %s %q: control characters kept", which, name, text)
		}
		if n := len([]rune(text)); n > maxText {
			t.Errorf("%s %s is %d characters long", which, name, n)
		}
	}
}

// A line read just as the host was dropped (its stream being ended) is taken after the
// drop: it must not bring the panes back, nor bring the daemon down.
func TestFleetLineReadAsTheHostIsDropped(t *testing.T) {
	f := New(newFakeDialer())
	f.SetHosts([]string{"devbox"})
	l := f.links["devbox"]
	defer l.stop()
	ctx, end := context.WithCancelCause(context.Background())
	l.endStream, l.beat = end, time.Minute
	f.hello(l, firstLine{line: hello(time.Minute, wire.Pane{ID: "%1", Name: "api", State: "BUSY"})})
	f.dropNow(l)
	_ = f.apply(ctx, l, wire.FollowLine{Type: wire.FollowChange, Panes: []wire.Pane{{ID: "%2", Name: "web", State: "READY"}}})
	if v := f.View(); len(v.Panes) != 0 {
		t.Errorf("panes after the drop: %+v", v.Panes)
	}
	if context.Cause(ctx) != errSilent {
		t.Errorf("the stream's end: %v, want %v", context.Cause(ctx), errSilent)
	}
}

// A host's panes are held in memory: change lines that bring new panes, each within the
// bound on a line, end the stream once the host's come to over maxPanes.
func TestFleetBoundsAHostsPanes(t *testing.T) {
	d := newFakeDialer()
	f := runFleet(t, d, testTiming, "devbox")
	s := d.next(t)
	s.sendLine(t, hello(time.Minute))
	await(t, f, "up", hostIs(wire.HostUp))
	go func() { // the fleet may stop reading before the last
		id := 0
		for range 3 {
			var panes []wire.Pane
			for range maxPanes / 2 {
				id++
				panes = append(panes, wire.Pane{ID: fmt.Sprintf("%%%d", id), State: "READY"})
			}
			b, _ := json.Marshal(wire.FollowLine{Type: wire.FollowChange, Panes: panes})
			if _, err := s.w.Write(append(b, '\n')); err != nil {
				return
			}
		}
	}()
	var v View
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if v = f.View(); v.Hosts[0].State == wire.HostUnreachable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %+v with %d panes; want it unreachable", v.Hosts[0], len(v.Panes))
		}
	}
	if want := fmt.Sprintf("its paneherd sent over %d panes", maxPanes); v.Hosts[0].Why != want {
		t.Errorf("why %q, want %q", v.Hosts[0].Why, want)
	}
	if len(v.Panes) > 2*maxPanes {
		t.Errorf("%d panes held", len(v.Panes))
	}
}

// A pane first seen in a dialog is a state, not a change: not notified. One that comes
// back in a dialog after the host's panes were dropped came to it while nothing was
// heard: a change from UNKNOWN, notified.
func TestFleetDialogThatCameWhileDroppedIsAChange(t *testing.T) {
	d := newFakeDialer()
	f := New(d)
	f.Timing = testTiming
	f.Timing.DropAfter = 300 * time.Millisecond
	transitions := make(chan wire.Transition, 10)
	befores := make(chan wire.Pane, 10)
	f.Transition = func(before wire.Pane, tr wire.Transition) { befores <- before; transitions <- tr }
	f.SetHosts([]string{"devbox"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	s := d.next(t)
	s.sendLine(t, hello(time.Minute, wire.Pane{ID: "%1", Name: "api", State: "BUSY"}, wire.Pane{ID: "%3", Name: "old", State: "NEEDS_CONFIRMATION"}))
	await(t, f, "dropped", func(v View) bool {
		return len(v.Hosts) == 1 && v.Hosts[0].State == wire.HostUnreachable && len(v.Panes) == 0
	})
	s = d.next(t)
	s.sendLine(t, hello(time.Minute, wire.Pane{ID: "%1", Name: "api", State: "BUSY"}, wire.Pane{ID: "%2", Name: "web", State: "NEEDS_CONFIRMATION", Since: time.Now()}))
	select {
	case tr := <-transitions:
		before := <-befores
		if tr.PaneID != "%2" || tr.From != "UNKNOWN" || tr.To != "NEEDS_CONFIRMATION" || before.Since.IsZero() || before.Host != "devbox" {
			t.Errorf("transition %+v from %+v; want %%2 UNKNOWN->NEEDS_CONFIRMATION from a record with its host and since", tr, before)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the dialog that came while the host was dropped was no change")
	}
	select {
	case tr := <-transitions:
		t.Errorf("another transition: %+v", tr)
	default:
	}
}
