package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestBehindBackendDrops: a backend that hangs holds its first send; its queue fills, and
// what finds it full is dropped, counted each time and logged once, while the others
// deliver everything. Each notification's record says what became of it there.
func TestBehindBackendDrops(t *testing.T) {
	desktop, command := &fakeBackend{name: "desktop"}, newHang("command")
	withExtras(t, map[string]Extra{"command": as(command)})
	var logged syncBuffer
	cfg := allOn()
	cfg.Burst, cfg.Command = time.Millisecond, "notify-me"
	n := New(desktop, &fakeBackend{name: "tmux"}, Config{})
	n.Log = zerolog.New(&logged)
	n.SetConfig(cfg)
	n.sendDeadline = time.Minute
	var mu sync.Mutex
	var recorded []Sent
	dropped := map[string]int{}
	n.Record = func(s Sent) { mu.Lock(); recorded = append(recorded, s); mu.Unlock() }
	n.Dropped = func(b string) { mu.Lock(); dropped[b]++; mu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { n.Run(ctx); close(ran) }()

	const sent = 30
	for i := range sent {
		n.Offer(Notification{At: time.Now(), PaneID: fmt.Sprintf("%%%d", i), Event: Failed, State: "ERROR", Title: fmt.Sprint("failed ", i)})
		waitUntil(t, fmt.Sprintf("notification %d reaches the desktop", i), 5*time.Second, func() bool { return len(desktop.got()) == i+1 })
		if i == 0 {
			<-command.started
		}
	}
	cancel()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return once its context ended: a lane held it")
	}
	behind := sent - 1 - laneQueue // one held, a queue's worth waiting
	mu.Lock()
	defer mu.Unlock()
	if dropped["command"] != behind || len(dropped) != 1 {
		t.Errorf("dropped = %v; want %d for the hanging command backend only", dropped, behind)
	}
	if c := strings.Count(logged.String(), "notification backend is behind"); c != 1 {
		t.Errorf("the hanging backend's drops were logged %d times, want once:\n%s", c, logged.String())
	}
	outcomes := map[string]int{}
	for _, s := range recorded {
		if s.Backends() != "desktop" {
			t.Errorf("%s delivered by %q, want desktop", s.PaneID, s.Backends())
		}
		for _, r := range s.Results {
			if r.Backend == "command" {
				outcomes[outcomeOf(r.Err)]++
			}
		}
	}
	if len(recorded) != sent || outcomes["canceled"] != 1 || outcomes["stopped"] != laneQueue || outcomes["behind"] != behind {
		t.Errorf("%d recorded; the hanging backend's results: %v; want %d: 1 canceled, %d stopped, %d behind",
			len(recorded), outcomes, sent, laneQueue, behind)
	}
}

func outcomeOf(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, ErrStopped):
		return "stopped"
	case errors.Is(err, ErrBehind):
		return "behind"
	}
	return fmt.Sprint(err)
}

// heldBackend records what it sends, after holding its first send until released.
type heldBackend struct {
	fakeBackend
	started, release chan struct{}
	once             sync.Once
}

func newHeld(name string) *heldBackend {
	return &heldBackend{fakeBackend: fakeBackend{name: name}, started: make(chan struct{}), release: make(chan struct{})}
}

func (h *heldBackend) Send(ctx context.Context, n Notification) error {
	h.once.Do(func() {
		close(h.started)
		<-h.release
	})
	return h.fakeBackend.Send(ctx, n)
}

// TestQueuedNotificationsFollowTheConfiguration: what waits in a backend's queue goes
// where the options say when its turn comes: through the backend as it is configured
// now, and nowhere once it is turned off, which its record says.
func TestQueuedNotificationsFollowTheConfiguration(t *testing.T) {
	for _, tt := range []struct {
		name    string
		change  func(Config) Config
		sentNew bool // the queued ones go through the backend as reconfigured
	}{
		{"webhook URL changed", func(c Config) Config { c.Webhook = "http://127.0.0.1:1/new"; return c }, true},
		{"webhook unset", func(c Config) Config { c.Webhook = ""; return c }, false},
		{"notify-backend off", func(c Config) Config { c.Backend = "off"; return c }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hooks := map[string]*heldBackend{"http://127.0.0.1:1/old": newHeld("webhook"), "http://127.0.0.1:1/new": newHeld("webhook")}
			close(hooks["http://127.0.0.1:1/new"].release)
			withExtras(t, map[string]Extra{"webhook": func(c Config, _ ExtraEnv) (Backend, error) { return hooks[c.Webhook], nil }})
			old, updated := hooks["http://127.0.0.1:1/old"], hooks["http://127.0.0.1:1/new"]
			desktop := &fakeBackend{name: "desktop"}
			cfg := allOn()
			cfg.Burst, cfg.Webhook = time.Millisecond, "http://127.0.0.1:1/old"
			n := New(desktop, &fakeBackend{name: "tmux"}, Config{})
			n.SetConfig(cfg)
			records := make(chan Sent, 8)
			n.Record = func(s Sent) { records <- s }
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go n.Run(ctx)

			t0 := time.Now()
			for i := range 3 {
				n.Offer(Notification{At: t0, PaneID: fmt.Sprintf("%%%d", i), Event: Failed, State: "ERROR", Title: fmt.Sprint("failed ", i)})
				waitUntil(t, fmt.Sprintf("notification %d reaches the desktop", i), 5*time.Second, func() bool { return len(desktop.got()) == i+1 })
				if i == 0 {
					<-old.started // the old webhook holds the first; the others wait in its queue
				}
			}
			n.SetConfig(tt.change(cfg))
			close(old.release)
			var queued []Sent
			for range 3 {
				select {
				case s := <-records:
					if s.PaneID != "%0" {
						queued = append(queued, s)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("not every notification was recorded")
				}
			}
			if got := old.got(); len(got) != 1 || got[0].PaneID != "%0" {
				t.Errorf("the old webhook sent %d notifications, want only the one under way at the change", len(got))
			}
			if tt.sentNew != (len(updated.got()) == 2) {
				t.Errorf("the reconfigured webhook sent %d of the 2 queued notifications; want them all: %v", len(updated.got()), tt.sentNew)
			}
			for _, s := range queued {
				webhook := s.Results[len(s.Results)-1]
				if tt.sentNew != (webhook.Err == nil) || !tt.sentNew && !errors.Is(webhook.Err, ErrTurnedOff) {
					t.Errorf("%s: the webhook's result %+v; want sent: %v, else turned off", s.PaneID, webhook, tt.sentNew)
				}
			}
		})
	}
}

// TestStoppingRecordsWhatWasNotSent: a notifier stopped with notifications waiting (in a
// backend's queue, in a burst's window, not yet taken) records each of them, as not sent
// by each backend that had not sent it, before Run returns.
func TestStoppingRecordsWhatWasNotSent(t *testing.T) {
	desktop, webhook := &fakeBackend{name: "desktop"}, newHang("webhook")
	withExtras(t, map[string]Extra{"webhook": as(webhook)})
	cfg := allOn()
	cfg.Burst, cfg.Webhook = time.Millisecond, "http://127.0.0.1:1/hook"
	n := New(desktop, &fakeBackend{name: "tmux"}, Config{})
	n.SetConfig(cfg)
	n.sendDeadline = time.Minute
	var mu sync.Mutex
	recorded := map[string]Sent{}
	n.Record = func(s Sent) { mu.Lock(); recorded[s.PaneID] = s; mu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { n.Run(ctx); close(ran) }()

	failed := func(pane string) Notification {
		return Notification{At: time.Now(), PaneID: pane, Event: Failed, State: "ERROR", Title: pane + " failed"}
	}
	n.Offer(failed("%1"))
	<-webhook.started // the webhook holds %1
	n.Offer(failed("%2"))
	waitUntil(t, "%2 reaches the desktop", 5*time.Second, func() bool { return len(desktop.got()) == 2 })
	cfg.Burst = time.Hour // what comes now waits in a burst's window
	n.SetConfig(cfg)
	n.Offer(failed("%3"))
	n.Offer(failed("%4"))
	cancel()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return once its context ended")
	}

	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{
		"%1": "desktop <nil>; webhook canceled",
		"%2": "desktop <nil>; webhook stopped",
		"%3": "desktop stopped; webhook stopped",
		"%4": "desktop stopped; webhook stopped",
	}
	for pane, w := range want {
		s, ok := recorded[pane]
		if !ok {
			t.Errorf("%s is not recorded", pane)
			continue
		}
		var got []string
		for _, r := range s.Results {
			outcome := "<nil>"
			if r.Err != nil {
				outcome = outcomeOf(r.Err)
			}
			got = append(got, r.Backend+" "+outcome)
		}
		if strings.Join(got, "; ") != w {
			t.Errorf("%s recorded as %q, want %q", pane, strings.Join(got, "; "), w)
		}
	}
	if len(recorded) != len(want) {
		t.Errorf("%d notifications recorded, want %d", len(recorded), len(want))
	}
}

// skipper is a backend with nothing to do for any event (a sound for a stall).
type skipper struct{}

func (skipper) Name() string { return "sound" }
func (skipper) Send(context.Context, Notification) error {
	return fmt.Errorf("sound: stalled: %w", ErrSkipped)
}

// TestASkippedEventIsNoResult: a backend that has nothing to do for an event neither
// delivered it nor failed: the history names neither.
func TestASkippedEventIsNoResult(t *testing.T) {
	r := route{name: "sound", chain: []Backend{skipper{}}, deadline: time.Second}
	if got := r.send(context.Background(), TestNotification()); len(got) != 0 {
		t.Errorf("results %+v, want none", got)
	}
}
