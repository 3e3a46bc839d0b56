package notify

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
)

// fakeBackend records what it is asked to send, or fails.
type fakeBackend struct {
	name string
	fail error
	mu   sync.Mutex
	sent []Notification
}

func (f *fakeBackend) Name() string { return f.name }
func (f *fakeBackend) Send(ctx context.Context, n Notification) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.sent = append(f.sent, n)
	return nil
}
func (f *fakeBackend) got() []Notification {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Notification(nil), f.sent...)
}

func allOn() Config {
	c := Config{Enabled: map[Event]bool{}, Backend: "auto", Dedupe: 90 * time.Second, PerPane: 3,
		PerPaneW: time.Minute, Burst: 50 * time.Millisecond, FinishedMin: 10 * time.Second}
	for _, e := range Events {
		c.Enabled[e] = true
	}
	return c
}

func TestAdmit(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	n := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, allOn())
	steps := []struct {
		name string
		x    Notification
		want bool
	}{
		{"first dialog", Notification{At: at(0), PaneID: "%1", State: "NEEDS_CONFIRMATION", Event: NeedsConfirmation}, true},
		{"same pane and state inside the window", Notification{At: at(30), PaneID: "%1", State: "NEEDS_CONFIRMATION", Event: NeedsConfirmation}, false},
		{"another state of the pane", Notification{At: at(31), PaneID: "%1", State: "ERROR", Event: Failed}, true},
		{"a quick finish is not news", Notification{At: at(32), PaneID: "%1", State: "READY", Event: Finished, Lasted: 3 * time.Second}, false},
		{"a long finish is", Notification{At: at(33), PaneID: "%1", State: "READY", Event: Finished, Lasted: time.Minute}, true},
		{"fourth of the pane within a minute: rate-limited", Notification{At: at(34), PaneID: "%1", State: "STALLED", Event: Stalled}, false},
		{"another pane is not limited", Notification{At: at(35), PaneID: "%2", State: "STALLED", Event: Stalled}, true},
		{"same dialog after the window", Notification{At: at(100), PaneID: "%1", State: "NEEDS_CONFIRMATION", Event: NeedsConfirmation}, true},
	}
	for _, s := range steps {
		if got := n.admit(s.x); got != s.want {
			t.Errorf("%s: admit = %v, want %v", s.name, got, s.want)
		}
	}
	off := allOn()
	off.Enabled[Failed] = false
	n.SetConfig(off)
	if n.admit(Notification{At: at(200), PaneID: "%3", State: "ERROR", Event: Failed}) {
		t.Error("a switched-off event was admitted")
	}
}

func TestBurstBecomesOneSummaryAndSkipsWatchedPane(t *testing.T) {
	desktop := &fakeBackend{name: "desktop"}
	n := New(desktop, &fakeBackend{name: "tmux"}, allOn())
	n.Clients = func(ctx context.Context) ([]Client, error) {
		return []Client{{PaneID: "%9", Focused: true, FocusKnown: true}, {PaneID: "%4", Focused: false}}, nil
	}
	var recorded []Sent
	var mu sync.Mutex
	n.Record = func(s Sent) { mu.Lock(); recorded = append(recorded, s); mu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go n.Run(ctx)
	now := time.Now()
	for _, x := range []Notification{
		{At: now, PaneID: "%1", Name: "api", Target: "s:1.0", State: "READY", Event: Finished, Title: "api finished", Lasted: time.Minute},
		{At: now, PaneID: "%2", Name: "web", Target: "s:2.0", State: "NEEDS_CONFIRMATION", Event: NeedsConfirmation, Title: "web needs your confirmation", Critical: true},
		{At: now, PaneID: "%9", Name: "mine", Target: "s:0.0", State: "ERROR", Event: Failed, Title: "mine failed", Critical: true},
	} {
		n.Offer(x)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(desktop.got()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := desktop.got()
	if len(got) != 1 {
		t.Fatalf("%d notifications sent, want one summary", len(got))
	}
	s := got[0]
	if !s.Critical || s.Title != "2 workers changed; some need you" ||
		!strings.HasPrefix(s.Body, "web needs your confirmation (s:2.0)\napi finished (s:1.0)") || strings.Contains(s.Body, "mine") {
		t.Errorf("summary = %+v", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(recorded) != 2 || recorded[0].Backends() != "desktop" {
		t.Errorf("recorded = %+v; want one entry per pane notified", recorded)
	}
}

func TestDeliverFallsBackAndExplains(t *testing.T) {
	desktop := &fakeBackend{name: "desktop", fail: ErrNoDesktop}
	tmuxB := &fakeBackend{name: "tmux"}
	n := New(desktop, tmuxB, allOn())
	if s := n.Deliver(context.Background(), TestNotification()); s.Backends() != "tmux" || s.Failure() != nil {
		t.Errorf("auto with no desktop: %+v", s)
	}
	tmuxB.fail = ErrNoClient
	s := n.Deliver(context.Background(), TestNotification())
	if s.Delivered() || !strings.Contains(s.Failure().Error(), "desktop: no desktop session bus") ||
		!strings.Contains(s.Failure().Error(), "tmux: no tmux client attached") {
		t.Errorf("nothing delivered: %+v", s)
	}
	only := allOn()
	only.Backend = "desktop"
	n.SetConfig(only)
	tmuxB.fail = nil
	if s := n.Deliver(context.Background(), TestNotification()); s.Delivered() {
		t.Errorf("backend desktop fell back to %s", s.Backends())
	}
}

func TestFromTransition(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	pane := wire.Pane{ID: "%3", Name: "api", Session: "work", WindowIndex: 2, PaneIndex: 1, Since: t0}
	tests := []struct {
		from, to, rule string
		want           Event
		title          string
	}{
		{"BUSY", "NEEDS_CONFIRMATION", "dialog", NeedsConfirmation, "api needs your confirmation"},
		{"BUSY", "READY", "prompt", Finished, "api finished (ran 1m30s)"},
		{"READY", "ERROR", "api-error", Failed, "api failed"},
		{"BUSY", "STALLED", "stalled", Stalled, "api is stalled (busy for 1m30s, screen frozen)"},
		{"BUSY", "OFFLINE", "pane-dead", Exited, "api exited"},
		{"READY", "EXITED", "exit-screen", Exited, "api exited"},
		{"BUSY", "OFFLINE", "pane-gone", "", ""},
		{"UNKNOWN", "READY", "prompt", "", ""},
		{"READY", "BUSY", "spinner", "", ""},
	}
	for _, tt := range tests {
		n, ok := FromTransition(pane, wire.Transition{From: tt.from, To: tt.to, Rule: tt.rule, Summary: "Bash: rm -rf build", At: t0.Add(90 * time.Second)})
		if ok != (tt.want != "") || n.Event != tt.want || n.Title != tt.title {
			t.Errorf("%s -> %s (%s): %v %+v", tt.from, tt.to, tt.rule, ok, n)
			continue
		}
		if ok && (n.Body != "Bash: rm -rf build\nin work:2.1" || n.Summary != "Bash: rm -rf build" || n.From != tt.from) {
			t.Errorf("%s -> %s: body %q, summary %q, from %q", tt.from, tt.to, n.Body, n.Summary, n.From)
		}
	}
	started := pane
	started.State, started.Rule = "BUSY", tracker.RuleStarting
	if n, ok := FromTransition(started, wire.Transition{From: "BUSY", To: "READY", Rule: "prompt", At: t0.Add(90 * time.Second)}); ok {
		t.Errorf("an agent that started and waits at its prompt notified: %+v", n)
	}
	first := pane
	first.Since = time.Time{}
	if _, ok := FromTransition(first, wire.Transition{From: "UNKNOWN", To: "NEEDS_CONFIRMATION"}); ok {
		t.Error("the first look at a pane notified")
	}
}

func TestWatchedWithoutFocusEvents(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clients := []Client{
		{PaneID: "%1", Focused: true, FocusKnown: false, Activity: now.Add(-10 * time.Second)},
		{PaneID: "%2", Focused: true, FocusKnown: false, Activity: now.Add(-10 * time.Minute)},
		{PaneID: "%3", Focused: false, FocusKnown: true, Activity: now},
		{PaneID: "%4", Focused: true, Control: true, Activity: now},
	}
	w := Watched(clients, now)
	if !w["%1"] || w["%2"] || w["%3"] || w["%4"] {
		t.Errorf("watched = %v; want only %%1 (focus unknown, typed 10 s ago)", w)
	}
}

// TestAdmitForgetsPanesNoWindowNeeds lets panes come and go for hours, one notification
// each, and expects the notifier to remember only the panes its windows still need.
func TestAdmitForgetsPanesNoWindowNeeds(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	cfg := allOn()
	n := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, cfg)
	failed := func(pane int, at time.Time) Notification {
		return Notification{At: at, PaneID: fmt.Sprintf("%%%d", pane), State: "ERROR", Event: Failed, Body: "boom"}
	}
	const panes = 20_000
	for i := range panes {
		if !n.admit(failed(i, t0.Add(time.Duration(i)*time.Second))) {
			t.Fatalf("pane %d, the first of its kind, was not admitted", i)
		}
	}
	// A pane notifies once a second: a window of w seconds needs the last w panes, and
	// forgetting once a window may leave up to twice that.
	limit := 2*int(max(cfg.Dedupe, cfg.PerPaneW)/time.Second) + 1
	if len(n.lastSent) > limit || n.recent.Len() > limit {
		t.Errorf("after %d panes the notifier remembers %d dedupe keys and %d rate-limited panes, want at most %d",
			panes, len(n.lastSent), n.recent.Len(), limit)
	}
	last := t0.Add(panes * time.Second)
	if n.admit(failed(panes-1, last)) {
		t.Error("the newest pane's repeat inside the dedupe window was admitted: forgotten too soon")
	}

	// A crowd of panes at one instant is all needed then, and all forgotten later.
	crowd := last.Add(time.Hour)
	for i := range panes {
		n.admit(failed(panes+i, crowd))
	}
	n.admit(failed(0, crowd.Add(time.Hour)))
	if len(n.lastSent) != 1 || n.recent.Len() != 1 {
		t.Errorf("an hour after the crowd: %d dedupe keys and %d panes remembered, want 1", len(n.lastSent), n.recent.Len())
	}
}

// TestRecallCarriesOverWhatWasSent: a new notifier handed what an earlier one recorded
// neither repeats a notification inside its dedupe window nor exceeds a pane's limit,
// and takes a recalled dialog as one its pane has not left; what no backend delivered
// counts for neither.
func TestRecallCarriesOverWhatWasSent(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	dialog := func(s int, pane, body string) Notification {
		return Notification{At: at(s), PaneID: pane, State: "NEEDS_CONFIRMATION", Event: NeedsConfirmation, Body: body}
	}
	failed := func(s int, pane, body string) Notification {
		return Notification{At: at(s), PaneID: pane, State: "ERROR", Event: Failed, Body: body}
	}
	earlier := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, allOn())
	var past []wire.Notification
	for _, x := range []Notification{dialog(0, "%1", "rm -rf build?"), failed(1, "%2", "a"), failed(2, "%2", "b"), failed(3, "%2", "c")} {
		if !earlier.admit(x) {
			t.Fatalf("%+v not admitted by the earlier notifier", x)
		}
		past = append(past, HistoryRecord(Sent{Notification: x, Results: []Result{{Backend: "tmux"}}}))
	}
	past = append(past, HistoryRecord(Sent{Notification: TestNotification(), Results: []Result{{Backend: "tmux"}}}))
	// What no backend delivered was never notified: it neither repeats nor counts.
	notSent := []Result{{Backend: "desktop", Err: ErrNoDesktop}, {Backend: "webhook", Err: named("webhook", ErrStopped)}}
	for _, x := range []Notification{failed(4, "%3", "a"), failed(5, "%3", "b"), failed(6, "%3", "c"), dialog(7, "%4", "proceed?")} {
		past = append(past, HistoryRecord(Sent{Notification: x, Results: notSent}))
	}

	n := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, allOn())
	n.Recall(past)
	steps := []struct {
		name string
		x    Notification
		want bool
	}{
		{"the same dialog inside the window", dialog(30, "%1", "rm -rf build?"), false},
		{"another question of the pane", dialog(31, "%1", "git push?"), true},
		{"the same error inside the window", failed(32, "%2", "c"), false},
		{"a fourth of a pane within a minute", failed(33, "%2", "d"), false},
		{"a dialog of that pane all the same", dialog(34, "%2", "proceed?"), true},
		{"an error no backend delivered, the pane's fourth", failed(35, "%3", "c"), true},
		{"a dialog no backend delivered", dialog(36, "%4", "proceed?"), true},
		{"the same dialog after the window", dialog(130, "%1", "git push?"), true},
	}
	for _, s := range steps {
		if got := n.admit(s.x); got != s.want {
			t.Errorf("%s: admit = %v, want %v", s.name, got, s.want)
		}
	}
}

// TestBusOnlyLooks: finding the bus address must not change the process environment
// (a getter with a side effect on every process-wide reader).
func TestBusOnlyLooks(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	d := Desktop{UID: -1, Env: func(context.Context) map[string]string {
		return map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"}
	}}
	addr, err := d.Bus(context.Background())
	if err != nil || addr != "unix:path=/nonexistent/bus" {
		t.Fatalf("Bus = %q, %v; want tmux's address", addr, err)
	}
	if v, set := os.LookupEnv("DBUS_SESSION_BUS_ADDRESS"); set {
		t.Errorf("Bus set DBUS_SESSION_BUS_ADDRESS=%q in the process", v)
	}
}

// TestSummaryTakesTheMostUrgentEvent: a burst's summary is the event of its most urgent
// notification, whichever came first (the sound it plays and the tag ntfy shows follow
// it), and critical when any of them is.
func TestSummaryTakesTheMostUrgentEvent(t *testing.T) {
	mk := func(ev Event, st string) Notification {
		return Notification{PaneID: "%" + string(ev), Event: ev, State: st, Critical: ev == NeedsConfirmation || ev == Failed,
			Title: string(ev), Target: "s:1.0"}
	}
	dialog, failed, sup := mk(NeedsConfirmation, "NEEDS_CONFIRMATION"), mk(Failed, "ERROR"), mk(Supervisor, "ERROR")
	finished, stalled, exited := mk(Finished, "READY"), mk(Stalled, "STALLED"), mk(Exited, "OFFLINE")
	tests := []struct {
		name     string
		burst    []Notification
		event    Event
		state    string
		critical bool
	}{
		{"a stall, then a finish", []Notification{stalled, finished}, Finished, "READY", false},
		{"an exit, then a stall", []Notification{exited, stalled}, Stalled, "STALLED", false},
		{"a finish, then the supervisor's word", []Notification{finished, sup}, Supervisor, "ERROR", false},
		{"the supervisor's word, then an error", []Notification{sup, failed}, Failed, "ERROR", true},
		{"an error, then a dialog", []Notification{exited, failed, dialog}, NeedsConfirmation, "NEEDS_CONFIRMATION", true},
		{"a dialog first", []Notification{dialog, stalled, exited}, NeedsConfirmation, "NEEDS_CONFIRMATION", true},
		{"exits alone", []Notification{exited, exited}, Exited, "OFFLINE", false},
	}
	for _, tt := range tests {
		s := summarize(append([]Notification(nil), tt.burst...))
		if s.Event != tt.event || s.State != tt.state || s.Critical != tt.critical {
			t.Errorf("%s: summary is %s (%s), critical %v; want %s (%s), critical %v",
				tt.name, s.Event, s.State, s.Critical, tt.event, tt.state, tt.critical)
		}
	}
}

// An agent's process ending is news once: told as its shell comes back, unless the
// pane already read EXITED (its exit screen was read, and told, before the process ended).
func TestFromAgentExitOnce(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	p := wire.Pane{ID: "%1", Name: "api", Session: "work", State: "READY"}
	if n, ok := FromAgentExit(p, "claude", at); !ok || n.Event != Exited || n.Title != "api: claude exited" {
		t.Errorf("an agent gone from a READY pane: %+v, %v; want the exit told", n, ok)
	}
	p.State = "EXITED"
	if n, ok := FromAgentExit(p, "claude", at); ok {
		t.Errorf("an agent gone after its exit screen was told: %+v; want nothing more", n)
	}
}
