package metrics

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/state"
)

func text(t *testing.T, s *Set) string {
	t.Helper()
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCountsShowWithTheirLabels(t *testing.T) {
	s := New()
	s.Trigger("send", "DELIVERED", 0)
	s.Trigger("send", "ACK_TIMEOUT", 2)
	s.Trigger("send", "DEFER_TIMEOUT", 0)
	s.Trigger("approve", "ANSWERED", 1)
	s.Trigger("deny", "NOT_A_DIALOG", 0)
	s.Notified("needs-confirmation")
	s.Notified("needs-confirmation")
	s.Notified("test")
	s.NotificationDropped("webhook")
	s.NotificationDropped("webhook")
	s.Restart("api", "exited")
	s.Drift("renamed")
	got := text(t, s)
	for _, want := range []string{
		`paneherd_trigger_attempts_total{kind="send"} 3`,
		`paneherd_trigger_attempts_total{kind="approve"} 1`,
		`paneherd_trigger_attempts_total{kind="deny"} 1`,
		`paneherd_trigger_deliveries_total{kind="send"} 1`,
		`paneherd_trigger_deliveries_total{kind="approve"} 1`,
		`paneherd_trigger_deliveries_total{kind="deny"} 0`,
		`paneherd_trigger_retries_total 3`,
		`paneherd_trigger_timeouts_total{kind="send",outcome="ACK_TIMEOUT"} 1`,
		`paneherd_trigger_timeouts_total{kind="send",outcome="DEFER_TIMEOUT"} 1`,
		`paneherd_notifications_total{kind="needs-confirmation"} 2`,
		`paneherd_notifications_total{kind="test"} 1`,
		`paneherd_notification_drops_total{backend="webhook"} 2`,
		`paneherd_worker_restarts_total{why="exited",worker="api"} 1`,
		`paneherd_reconcile_drifts_total{kind="renamed"} 1`,
		"# TYPE paneherd_trigger_attempts_total counter",
		"# HELP paneherd_notifications_total Notifications delivered to a person, by event (needs-confirmation, finished, error, stalled, exited, test).",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestPaneGaugeReadsItsFunctionAtEachScrape(t *testing.T) {
	s := New()
	got := text(t, s)
	for _, st := range state.All {
		if want := `paneherd_panes{state="` + string(st) + `"} 0`; !strings.Contains(got, want) {
			t.Errorf("with no source, missing %q in:\n%s", want, got)
		}
	}
	counts := map[string]int{"READY": 2, "BUSY": 1}
	s.PaneStates(func() map[string]int { return counts })
	got = text(t, s)
	for _, want := range []string{`paneherd_panes{state="READY"} 2`, `paneherd_panes{state="BUSY"} 1`,
		`paneherd_panes{state="NEEDS_CONFIRMATION"} 0`, "# TYPE paneherd_panes gauge"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	counts = map[string]int{"READY": 5}
	if got := text(t, s); !strings.Contains(got, `paneherd_panes{state="READY"} 5`) {
		t.Errorf("the gauge did not read its function again:\n%s", got)
	}
}

func TestServeAnswersOnLoopback(t *testing.T) {
	s := New()
	s.Notified("finished")
	srv, err := s.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get("http://" + srv.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q, want the text format 0.0.4", ct)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `paneherd_notifications_total{kind="finished"} 1`) {
		t.Errorf("GET /metrics: %s\n%s", resp.Status, body)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + srv.Addr() + "/metrics"); err == nil {
		t.Error("still served after Close")
	}
}

func TestServeRefusesAddressesOffLoopback(t *testing.T) {
	for _, addr := range []string{":9464", "0.0.0.0:9464", "[::]:9464", "192.0.2.1:9464", "example.com:9464"} {
		t.Run(addr, func(t *testing.T) {
			srv, err := New().Serve(addr)
			if err == nil {
				srv.Close()
			}
			if !errors.Is(err, ErrNotLoopback) {
				t.Errorf("Serve(%q) = %v, want ErrNotLoopback", addr, err)
			}
		})
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0", "127.1.2.3:0"} {
		t.Run(addr, func(t *testing.T) {
			srv, err := New().Serve(addr)
			if errors.Is(err, ErrNotLoopback) {
				t.Errorf("Serve(%q) refused a loopback address: %v", addr, err)
			}
			if err == nil {
				srv.Close()
			}
		})
	}
}

// TestServeAnswersOnlyLoopbackHostNames: a page whose own domain resolves to 127.0.0.1
// (DNS rebinding) sends its domain in Host, and is refused; the names of the loopback and
// the address listened on are served.
func TestServeAnswersOnlyLoopbackHostNames(t *testing.T) {
	srv, err := New().Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Addr())
	for host, want := range map[string]int{
		"127.0.0.1:" + port:                  http.StatusOK,
		"localhost:" + port:                  http.StatusOK,
		"LocalHost:" + port:                  http.StatusOK,
		"[::1]:" + port:                      http.StatusOK,
		"attacker.example:" + port:           http.StatusForbidden,
		"attacker.example":                   http.StatusForbidden,
		"localhost.attacker.example:" + port: http.StatusForbidden,
		"localhost:1":                        http.StatusForbidden,
	} {
		req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/metrics", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %s, want %d", host, resp.Status, want)
		}
	}
}
