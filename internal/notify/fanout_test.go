package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// hangBackend never answers: each send waits until its deadline or the notifier's end.
type hangBackend struct {
	name    string
	started chan struct{} // closed at the first send
	once    sync.Once
	mu      sync.Mutex
	calls   int
}

func newHang(name string) *hangBackend {
	return &hangBackend{name: name, started: make(chan struct{})}
}

func (h *hangBackend) Name() string { return h.name }
func (h *hangBackend) Send(ctx context.Context, n Notification) error {
	h.mu.Lock()
	h.calls++
	h.mu.Unlock()
	h.once.Do(func() { close(h.started) })
	<-ctx.Done()
	return ctx.Err()
}

// describing is a backend that says what it will do, or why it cannot.
type describing struct {
	fakeBackend
	text string
	err  error
}

func (d *describing) Describe(ctx context.Context) (string, error) { return d.text, d.err }

// syncBuffer is a log the lanes may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// withExtras makes the extra backends the ones given, built by name, for one test.
func withExtras(t *testing.T, build map[string]Extra) {
	t.Helper()
	saved := extraBuilders
	extraBuilders = build
	t.Cleanup(func() { extraBuilders = saved })
}

// as builds b whatever the configuration says (on: Config.wants decided already).
func as(b Backend) Extra { return func(Config, ExtraEnv) (Backend, error) { return b, nil } }

// everyExtraOn turns every extra backend on.
func everyExtraOn(c Config) Config {
	c.Terminal, c.Command, c.Webhook, c.Sound = "auto", "notify-me", "http://127.0.0.1:1/hook", "on"
	return c
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// burstOf50 is 50 events of 10 panes in two bursts, stamped as the watcher would: per
// pane an error, a dialog and the same dialog again (the pane never left it) in the
// first; finished work and a stall, which the pane's limit of 3 a minute holds back, in
// the second. admitted is what of each burst passes the rules, in order.
func burstOf50() (bursts, admitted [][]Notification) {
	t0 := time.Unix(1_700_000_000, 0)
	event := func(p, step int, ev Event, st, body string) Notification {
		pane := fmt.Sprintf("%%%d", p)
		return Notification{At: t0.Add(time.Duration(10*step+p) * time.Second), PaneID: pane, Name: "w" + pane, Target: "s:" + pane,
			Event: ev, State: st, Title: fmt.Sprintf("w%s %s", pane, ev), Body: body, Lasted: time.Minute,
			Critical: ev == NeedsConfirmation || ev == Failed}
	}
	steps := []struct {
		ev       Event
		st, body string
		burst    int
		notifies bool
	}{
		{Failed, "ERROR", "API error 500", 0, true},
		{NeedsConfirmation, "NEEDS_CONFIRMATION", "Bash: rm -rf build", 0, true},
		{NeedsConfirmation, "NEEDS_CONFIRMATION", "Bash: rm -rf build", 0, false},
		{Finished, "READY", "", 1, true},
		{Stalled, "STALLED", "", 1, false},
	}
	bursts, admitted = make([][]Notification, 2), make([][]Notification, 2)
	for step, s := range steps {
		for p := range 10 {
			x := event(p, step, s.ev, s.st, s.body)
			bursts[s.burst] = append(bursts[s.burst], x)
			if s.notifies {
				admitted[s.burst] = append(admitted[s.burst], x)
			}
		}
	}
	return bursts, admitted
}

// TestEveryBackendGetsTheSameEvents: 50 events of 10 panes in two bursts. The rules apply
// once: every backend that works receives the same notifications, one summary per burst
// of what the dedupe and the per-pane limit let through, worded alike, its event the
// most urgent one's. A backend that hangs delays none of them. Each notification admitted
// is recorded once, with what each backend did: a failing backend's failure is in it.
func TestEveryBackendGetsTheSameEvents(t *testing.T) {
	desktop := &fakeBackend{name: "desktop"}
	terminal, sound := &fakeBackend{name: "terminal"}, &fakeBackend{name: "sound"}
	webhook := &fakeBackend{name: "webhook", fail: errors.New("500 Internal Server Error from the hook; check the URL")}
	command := newHang("command")
	withExtras(t, map[string]Extra{"terminal": as(terminal), "command": as(command), "webhook": as(webhook), "sound": as(sound)})

	n := New(desktop, &fakeBackend{name: "tmux"}, Config{})
	n.SetConfig(everyExtraOn(allOn()))
	n.sendDeadline = time.Minute // the hanging one holds its first send for the whole test
	var mu sync.Mutex
	var recorded []Sent
	n.Record = func(s Sent) { mu.Lock(); recorded = append(recorded, s); mu.Unlock() }
	// Each burst is offered while the notifier is busy with the one before (asking who
	// looks at which pane), so it waits whole in the queue: one burst, however slow the
	// machine.
	asked, proceed := make(chan struct{}), make(chan struct{})
	n.Clients = func(ctx context.Context) ([]Client, error) {
		select {
		case asked <- struct{}{}:
			<-proceed
		case <-ctx.Done():
		}
		return nil, nil
	}
	bursts, admitted := burstOf50()
	for _, x := range bursts[0] {
		n.Offer(x)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { n.Run(ctx); close(ran) }()

	slowest := time.Duration(0)
	for i := range bursts {
		select {
		case <-asked:
		case <-time.After(5 * time.Second):
			t.Fatalf("burst %d was not gathered", i)
		}
		if i+1 < len(bursts) {
			for _, x := range bursts[i+1] {
				n.Offer(x)
			}
		}
		start := time.Now()
		proceed <- struct{}{}
		waitUntil(t, fmt.Sprintf("burst %d reaches every working backend", i), 5*time.Second, func() bool {
			return len(desktop.got()) == i+1 && len(terminal.got()) == i+1 && len(sound.got()) == i+1
		})
		slowest = max(slowest, time.Since(start))
		if i == 0 {
			<-command.started // the hanging backend holds the first; the second waits in its queue
		}
	}
	if slowest > sendDeadline/4 {
		t.Errorf("a burst took %s to reach the working backends: the hanging one delayed them", slowest)
	}
	want := []struct {
		title string
		event Event
	}{{"20 workers changed; some need you", NeedsConfirmation}, {"10 workers changed", Finished}}
	for _, b := range []*fakeBackend{desktop, terminal, sound} {
		for i, got := range b.got() {
			var lines []string
			for _, x := range admitted[i] {
				lines = append(lines, x.Title+" ("+x.Target+")")
			}
			if got.Title != want[i].title || got.Event != want[i].event || got.Critical != (i == 0) || got.Body != strings.Join(lines, "\n") {
				t.Errorf("%s received as burst %d: %s (%s, critical %v)\n%s\nwant %s (%s) of\n%s",
					b.name, i, got.Title, got.Event, got.Critical, got.Body, want[i].title, want[i].event, strings.Join(lines, "\n"))
			}
		}
	}

	cancel()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return once its context ended: a lane held it")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(recorded) != len(admitted[0])+len(admitted[1]) {
		t.Fatalf("%d notifications recorded, want %d (each once every backend had its say)", len(recorded), len(admitted[0])+len(admitted[1]))
	}
	outcomes := map[string]int{}
	for _, s := range recorded {
		if s.Backends() != "desktop, terminal, sound" {
			t.Errorf("%s %s delivered by %q, want desktop, terminal, sound", s.PaneID, s.Event, s.Backends())
		}
		fails := s.Failure()
		if fails == nil || !strings.Contains(fails.Error(), "webhook: 500 Internal Server Error") {
			t.Errorf("%s %s: failure %v; want the webhook's", s.PaneID, s.Event, fails)
		}
		for _, r := range s.Results {
			if r.Backend == "command" {
				outcomes[fmt.Sprintf("%s %s", s.Event, outcomeOf(r.Err))]++
			}
		}
	}
	wantOutcomes := map[string]int{"needs-confirmation canceled": 10, "error canceled": 10, "finished stopped": 10}
	if fmt.Sprint(outcomes) != fmt.Sprint(wantOutcomes) {
		t.Errorf("the hanging backend's results: %v; want %v", outcomes, wantOutcomes)
	}
}

// TestHangingBackendMeetsItsDeadline: a send that never answers ends at its deadline,
// and the notification is recorded with that, the others' deliveries beside it.
func TestHangingBackendMeetsItsDeadline(t *testing.T) {
	desktop, hang := &fakeBackend{name: "desktop"}, newHang("webhook")
	withExtras(t, map[string]Extra{"webhook": as(hang)})
	cfg := allOn()
	cfg.Webhook = "http://127.0.0.1:1/hook"
	n := New(desktop, &fakeBackend{name: "tmux"}, Config{})
	n.SetConfig(cfg)
	n.sendDeadline = 200 * time.Millisecond
	records := make(chan Sent, 1)
	n.Record = func(s Sent) { records <- s }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Run(ctx)
	start := time.Now()
	n.Offer(Notification{At: start, PaneID: "%1", Event: Failed, State: "ERROR", Title: "api failed"})
	select {
	case s := <-records:
		took := time.Since(start)
		if s.Backends() != "desktop" || !errors.Is(s.Failure(), context.DeadlineExceeded) || !strings.HasPrefix(s.Failure().Error(), "webhook: ") {
			t.Errorf("recorded %+v; want desktop's delivery and the webhook's deadline", s.Results)
		}
		if took < n.sendDeadline || took > 10*n.sendDeadline {
			t.Errorf("recorded after %s; want once the deadline of %s had passed, soon after", took, n.sendDeadline)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing recorded: the hanging send outlived its deadline")
	}
}

// TestExtraBackendsFollowTheirOptions: each extra backend is on when its option is set,
// in addition to the desktop-or-tmux choice; off silences them all; one that cannot be
// built is one line in the log and in notify test, and the others work.
func TestExtraBackendsFollowTheirOptions(t *testing.T) {
	terminal := &describing{fakeBackend: fakeBackend{name: "terminal"}, text: "osc777 to 1 client"}
	sound := &describing{fakeBackend: fakeBackend{name: "sound"}, err: errors.New("no player found; install pw-play")}
	withExtras(t, map[string]Extra{
		"terminal": as(terminal),
		"command": func(Config, ExtraEnv) (Backend, error) {
			return nil, errors.New("@paneherd-notify-command names no program")
		},
		"webhook": func(c Config, _ ExtraEnv) (Backend, error) {
			return nil, fmt.Errorf("format %q is not json, ntfy or slack", c.WebhookFormat)
		},
		"sound": as(sound),
	})
	var logged syncBuffer
	desktop, tmuxB := &fakeBackend{name: "desktop", fail: ErrNoDesktop}, &fakeBackend{name: "tmux"}
	n := New(desktop, tmuxB, Config{})
	n.Log = zerolog.New(&logged)

	n.SetConfig(allOn())
	if s := n.Deliver(context.Background(), TestNotification()); s.Backends() != "tmux" || len(s.Results) != 2 || !s.Results[0].Covered {
		t.Errorf("nothing set: results %+v; want today's desktop-else-tmux alone", s.Results)
	}

	cfg := everyExtraOn(allOn())
	cfg.WebhookFormat = "xml"
	n.SetConfig(cfg)
	s := n.Deliver(context.Background(), TestNotification())
	var lines []string
	for _, r := range s.Results {
		lines = append(lines, fmt.Sprintf("%s %v %v", r.Backend, r.Err, r.Covered))
	}
	want := []string{
		"desktop desktop: no desktop session bus true", "tmux <nil> false", "terminal <nil> false", "sound <nil> false",
		"command command: @paneherd-notify-command names no program false",
		`webhook webhook: format "xml" is not json, ntfy or slack false`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("notify test results:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if c := strings.Count(logged.String(), "notification backend not used"); c != 2 {
		t.Errorf("%d log lines for the two unusable backends, want 2:\n%s", c, logged.String())
	}
	statuses := n.Describe(context.Background())
	var described []string
	for _, st := range statuses {
		described = append(described, fmt.Sprintf("%s %q %v", st.Backend, st.Text, st.Err))
	}
	wantDescribed := []string{`terminal "osc777 to 1 client" <nil>`,
		`command "" command: @paneherd-notify-command names no program`,
		`webhook "" webhook: format "xml" is not json, ntfy or slack`,
		`sound "" sound: no player found; install pw-play`}
	if strings.Join(described, "\n") != strings.Join(wantDescribed, "\n") {
		t.Errorf("Describe:\n%s\nwant:\n%s", strings.Join(described, "\n"), strings.Join(wantDescribed, "\n"))
	}

	cfg.Backend = "off"
	n.SetConfig(cfg)
	if s := n.Deliver(context.Background(), TestNotification()); len(s.Results) != 0 || !errors.Is(s.Failure(), ErrOff) {
		t.Errorf("off: results %+v; want nothing sent", s.Results)
	}
	if got := len(terminal.got()) + len(sound.got()); got != 2 {
		t.Errorf("the terminal and the sound backends sent %d test notifications, want one each", got)
	}
}

// TestCommandDeadlineFollowsItsTimeout: the command backend ends its program at its own
// timeout and says so; its lane waits that long, and a little more.
func TestCommandDeadlineFollowsItsTimeout(t *testing.T) {
	c := Config{CommandTimeout: 30 * time.Second}
	if got := c.deadline("command", sendDeadline); got != 32*time.Second {
		t.Errorf("command's deadline = %s, want 32s", got)
	}
	if got := c.deadline("webhook", sendDeadline); got != sendDeadline {
		t.Errorf("webhook's deadline = %s, want %s", got, sendDeadline)
	}
	if got := (Config{CommandTimeout: time.Second}).deadline("command", sendDeadline); got != sendDeadline {
		t.Errorf("a short command timeout shortened the deadline to %s", got)
	}
}

// TestEveryExtraHasABuilder: each backend ExtraNames lists has its builder and an option
// that turns it on, and each builder is listed: Extras calls a listed one's builder
// without looking.
func TestEveryExtraHasABuilder(t *testing.T) {
	on := everyExtraOn(allOn())
	for _, name := range ExtraNames {
		if extraBuilders[name] == nil {
			t.Errorf("%s is in ExtraNames but has no builder in extraBuilders", name)
		}
		if !on.wants(name) {
			t.Errorf("%s is in ExtraNames but no option turns it on (Config.wants)", name)
		}
	}
	for name := range extraBuilders {
		if !slices.Contains(ExtraNames, name) {
			t.Errorf("extraBuilders builds %s, which ExtraNames does not list: it is never built", name)
		}
	}
}
