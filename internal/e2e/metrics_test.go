package e2e

import (
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// freePort is a loopback port nothing listens on now: the option takes a fixed address.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

var paneGauge = regexp.MustCompile(`(?m)^paneherd_panes\{state="([A-Z_]+)"\} (\d+)$`)

// paneCounts reads the panes gauge out of Prometheus text.
func paneCounts(text string) map[string]int {
	counts := map[string]int{}
	for _, m := range paneGauge.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		if n > 0 {
			counts[m[1]] = n
		}
	}
	return counts
}

// metricNames are the metrics a text declares (# TYPE lines), sorted.
func metricNames(text string) []string {
	var names []string
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			names = append(names, f[2])
		}
	}
	sort.Strings(names)
	return names
}

func (r *rig) daemonLog() string {
	logs, _ := filepath.Glob(filepath.Join(r.home, "state", "paneherd", "*", "daemon.log"))
	var all string
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all += string(b)
	}
	return all
}

func scrape(addr string) (string, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestMetrics: `paneherd metrics` counts the panes there by state and the actions taken;
// a loopback listen address serves the same metrics over HTTP, and an address off
// loopback, set by a reload, is refused and stops the old one.
func TestMetrics(t *testing.T) {
	r := newRig(t)
	addr := "127.0.0.1:" + freePort(t)
	r.setOptions("send-quiet", "0s", "metrics-listen", addr)
	rec, _ := r.recorderPane(t, "", "rec")
	r.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	busy := r.tmux.NewWindow("work", "busy", showCommand(fixture(t, "claude/07-BUSY-streaming-answer.ansi")))
	r.tmux.Run("set-option", "-p", "-t", busy, "@paneherd-pack", "claude")
	r.start()
	r.waitState(rec, "READY")
	if res, code, errs := r.send("rec", "hello"); code != 0 || res.Outcome != "DELIVERED" {
		t.Fatalf("send: exit %d %+v %s", code, res, errs)
	}

	var text string
	r.waitFor("the panes gauge counts the panes status shows", 30*time.Second, func() bool {
		out, errs, code := r.paneherd("metrics")
		if code != 0 {
			t.Fatalf("metrics: exit %d: %s", code, errs)
		}
		text = out
		want := map[string]int{}
		for _, p := range r.status() {
			want[p.State]++
		}
		// Two reads at two moments: they agree once no state changes between them.
		return maps.Equal(paneCounts(out), want) && want["READY"] >= 1 && len(r.status()) == 2
	})
	for _, want := range []string{`paneherd_trigger_attempts_total{kind="send"} 1`, `paneherd_trigger_deliveries_total{kind="send"} 1`,
		`paneherd_panes{state="NEEDS_CONFIRMATION"} 0`, `paneherd_trigger_retries_total 0`,
		`paneherd_trigger_timeouts_total{kind="send",outcome="ACK_TIMEOUT"} 0`} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("paneherd metrics lacks %q:\n%s", want, text)
		}
	}

	served, err := scrape(addr)
	if err != nil {
		t.Fatalf("GET http://%s/metrics: %v", addr, err)
	}
	if got, want := metricNames(served), metricNames(text); strings.Join(got, " ") != strings.Join(want, " ") || !slices.Contains(want, "paneherd_panes") {
		t.Errorf("served metrics %v, paneherd metrics %v: want the same", got, want)
	}
	if !strings.Contains(r.daemonLog(), `"listen":"`+addr+`"`) {
		t.Errorf("the daemon's log does not say where it serves metrics:\n%s", tail(r.daemonLog(), 20))
	}

	open := "0.0.0.0:" + freePort(t)
	r.tmux.Run("set-option", "-g", "@paneherd-metrics-listen", open)
	r.paneherd("hook", "reload")
	r.waitFor("the open address is refused", 15*time.Second, func() bool {
		return strings.Contains(r.daemonLog(), `"listen":"`+open+`"`) && strings.Contains(r.daemonLog(), "loopback only")
	})
	if _, err := scrape(addr); err == nil {
		t.Errorf("metrics still served at %s after the option changed", addr)
	}
	if _, err := scrape(open); err == nil {
		t.Errorf("metrics served at %s, which is not loopback", open)
	}
}
