package supervisor

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/store"
)

// healthRig is a supervisor with one worker whose health prompts go to a recording send.
type healthRig struct {
	s       *Supervisor
	w       *wire.Worker
	rt      *runtime
	mu      sync.Mutex
	sent    []string
	outcome outcome.Outcome
	notes   []notify.Notification
	now     time.Time
}

func newHealthRig(t *testing.T) *healthRig {
	h := &healthRig{outcome: outcome.Delivered, now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}
	st, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(DefaultConfig)
	s.Store = st
	s.now = func() time.Time { return h.now }
	s.Send = func(ctx context.Context, ask wire.SendAsk) (wire.Result, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.sent = append(h.sent, ask.Text)
		return wire.Result{ID: ask.ID, Outcome: h.outcome, Typed: true}, nil
	}
	s.Notify = func(n notify.Notification) { h.notes = append(h.notes, n) }
	h.w = &wire.Worker{Name: "api", PaneID: "%1", HealthEvery: 30 * time.Minute, HealthPrompt: "status?"}
	h.rt = &runtime{since: h.now}
	h.w.Started = h.now
	s.workers["api"], s.run["api"] = h.w, h.rt
	h.s = s
	return h
}

// look runs one health check at the given state, and waits for a prompt it started.
func (h *healthRig) look(after time.Duration, st string) {
	h.now = h.now.Add(after)
	h.s.mu.Lock()
	h.s.healthDue(context.Background(), h.w, h.rt, wire.Pane{ID: "%1", State: st})
	h.s.mu.Unlock()
	h.s.wg.Wait()
}

func (h *healthRig) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sent)
}

func TestHealthPromptsOnlyWhenDueReadyAndNobodyTypes(t *testing.T) {
	h := newHealthRig(t)
	h.look(10*time.Minute, "READY")
	if h.count() != 0 {
		t.Fatal("sent before its interval")
	}
	h.look(25*time.Minute, "BUSY")
	h.look(0, "NEEDS_CONFIRMATION")
	h.look(0, "STALLED")
	if h.count() != 0 {
		t.Fatal("sent while the worker was not READY")
	}
	h.w.PersonActive = true
	h.look(0, "READY")
	if h.count() != 0 {
		t.Fatal("sent while a person types in its session")
	}
	h.w.PersonActive = false
	h.look(0, "READY")
	if h.count() != 1 {
		t.Fatalf("%d prompts once due and READY; want 1", h.count())
	}
	h.look(time.Minute, "READY")
	if h.count() != 1 {
		t.Fatal("sent again within its interval")
	}
}

func TestHealthPromptsHonourTheMinimumGap(t *testing.T) {
	h := newHealthRig(t)
	h.w.HealthEvery = time.Minute // asked for more often than the 5 minute floor
	h.look(time.Minute, "READY")
	h.look(3*time.Minute, "READY")
	if h.count() != 0 {
		t.Fatalf("%d prompts within 5 minutes of the start", h.count())
	}
	h.look(time.Minute, "READY")
	h.look(time.Minute, "READY")
	if h.count() != 1 {
		t.Fatalf("%d prompts; want 1 per 5 minutes", h.count())
	}
}

func TestHealthPromptsPauseAfterThreeThatChangeNothing(t *testing.T) {
	h := newHealthRig(t)
	h.outcome = outcome.AckTimeout
	for i := 0; i < 5; i++ {
		h.look(31*time.Minute, "READY")
	}
	if h.count() != 3 || !h.w.HealthPaused || len(h.notes) != 1 {
		t.Fatalf("%d prompts, paused %v, %d notifications; want 3, paused, 1", h.count(), h.w.HealthPaused, len(h.notes))
	}
	h.s.Continue(context.Background(), "api")
	h.outcome = outcome.Delivered
	h.look(31*time.Minute, "READY")
	if h.count() != 4 || h.w.HealthPaused {
		t.Fatalf("continue did not resume them: %d prompts, paused %v", h.count(), h.w.HealthPaused)
	}
}

func TestARefusedHealthPromptIsTriedAgainNotCounted(t *testing.T) {
	h := newHealthRig(t)
	h.s.Send = func(ctx context.Context, ask wire.SendAsk) (wire.Result, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.sent = append(h.sent, ask.Text)
		return wire.Result{Outcome: outcome.NotReady}, nil // it turned busy as we looked
	}
	h.look(31*time.Minute, "READY")
	h.look(10*time.Second, "READY")
	if h.count() != 1 {
		t.Fatalf("%d tries within a minute of a refusal", h.count())
	}
	h.look(time.Minute, "READY")
	if h.count() != 2 || h.rt.healthMiss != 0 {
		t.Fatalf("%d tries, %d misses; a refusal is tried again and never counts as a miss", h.count(), h.rt.healthMiss)
	}
}

func TestRestartPolicies(t *testing.T) {
	for _, c := range []struct {
		policy  string
		failure bool
		want    bool
	}{
		{OnFailure, true, true}, {OnFailure, false, false}, {Always, false, true}, {Never, true, false},
	} {
		if got := restartable(c.policy, c.failure); got != c.want {
			t.Errorf("restartable(%s, failure %v) = %v", c.policy, c.failure, got)
		}
	}
}

func TestAllowedWorkspaces(t *testing.T) {
	root := t.TempDir()
	s := New(Config{Workspaces: []string{root}})
	for dir, want := range map[string]bool{
		root: true, filepath.Join(root, "a", "b"): true, root + "x": false, filepath.Dir(root): false,
		filepath.Join(root, "..", filepath.Base(root)+"x"): false,
	} {
		if got := s.allowed(filepath.Clean(dir)); got != want {
			t.Errorf("allowed(%s) = %v, want %v", dir, got, want)
		}
	}
}

// TestLostDecidesByPolicyStatusAndAge: what an ended worker's policy, exit status and age
// make of it.
func TestLostDecidesByPolicyStatusAndAge(t *testing.T) {
	cases := []struct {
		name, policy string
		status       int
		lived        time.Duration
		due          bool
		failures     int
	}{
		{"a crash restarts", OnFailure, 3, time.Hour, true, 1},
		{"a clean exit stays down", OnFailure, 0, time.Hour, false, 0},
		{"killed, status unknown, restarts", OnFailure, -1, time.Hour, true, 1},
		{"always restarts a clean exit", Always, 0, time.Hour, true, 0},
		{"never restarts nothing", Never, 3, time.Hour, false, 1},
		{"a clean exit at once is a failure", Always, 0, time.Second, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHealthRig(t)
			h.w.Restart, h.w.Status = c.policy, string(Ready)
			h.w.Started = h.now.Add(-c.lived)
			h.s.lost(h.w, h.rt, "exited", "it ended", c.status)
			if h.w.Status != string(Offline) || h.w.RestartDue != c.due || len(h.w.Failures) != c.failures {
				t.Errorf("status %s, restart due %v, %d failures; want offline, %v, %d", h.w.Status, h.w.RestartDue, len(h.w.Failures), c.due, c.failures)
			}
			if young := c.lived < resumeGrace; (h.rt.backoff > 0) != young {
				t.Errorf("backoff %v after living %v", h.rt.backoff, c.lived)
			}
		})
	}
}

func TestThirdFailureWithinTheWindowGivesUp(t *testing.T) {
	h := newHealthRig(t)
	h.w.Restart = OnFailure
	for i := 0; i < 3; i++ {
		h.w.Status = string(Ready)
		h.w.Started = h.now.Add(-time.Hour)
		h.s.lost(h.w, h.rt, "exited", "it crashed", 3)
		h.now = h.now.Add(6 * time.Minute)
	}
	if h.w.Status != string(Failed) || len(h.notes) != 1 {
		t.Fatalf("after 3 crashes within 15 min: %s, %d notifications; want failed, 1", h.w.Status, len(h.notes))
	}
	h2 := newHealthRig(t)
	for i := 0; i < 3; i++ {
		h2.w.Status = string(Ready)
		h2.w.Started = h2.now.Add(-time.Hour)
		h2.s.lost(h2.w, h2.rt, "exited", "it crashed", 3)
		h2.now = h2.now.Add(8 * time.Minute) // the first has left the window by the third
	}
	if h2.w.Status == string(Failed) {
		t.Fatalf("3 crashes over 16 minutes gave up")
	}
}

func TestBackoffDoublesToAMinuteAndResetsAfterALife(t *testing.T) {
	var b time.Duration
	var got []time.Duration
	for i := 0; i < 8; i++ {
		b = nextBackoff(b, true)
		got = append(got, b)
	}
	if got[0] != time.Second || got[1] != 2*time.Second || got[7] != time.Minute {
		t.Errorf("backoffs %v", got)
	}
	if nextBackoff(time.Minute, false) != 0 {
		t.Errorf("a worker that lived still waits")
	}
}

// TestAWorkerLoadedByANewDaemonKeepsItsAge: a clean exit soon after the daemon restarts is
// no failure of a worker launched long before (the launch time is in the record).
func TestAWorkerLoadedByANewDaemonKeepsItsAge(t *testing.T) {
	h := newHealthRig(t)
	rec := wire.Worker{Name: "old", PaneID: "%4", Restart: OnFailure, Status: string(Ready), Started: h.now.Add(-time.Hour)}
	if err := h.s.Store.PutWorker(rec); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Load(); err != nil {
		t.Fatal(err)
	}
	h.now = h.now.Add(5 * time.Second)
	w, rt := h.s.workers["old"], h.s.run["old"]
	h.s.lost(w, rt, "exited", "it ended", 0)
	if len(w.Failures) != 0 || w.RestartDue || rt.backoff != 0 {
		t.Errorf("a clean exit 5 s after the daemon started: %d failures, restart due %v, backoff %v; want none", len(w.Failures), w.RestartDue, rt.backoff)
	}
}
