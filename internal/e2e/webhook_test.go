package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// posted is one request a webhook stand-in received.
type posted struct {
	path   string
	header http.Header
	body   string
}

// TestWebhookRecipes: docs/notifications.md's two webhook recipes through the daemon, each against a
// loopback stand-in: `notify test` reaches the ntfy stand-in as an ntfy message and the
// Slack one as {"text": …}; a failing server and a bad URL are each one line in `notify
// test` and doctor; and the URL's secret parts appear in none of notify test, doctor,
// history, status or the daemon's log.
func TestWebhookRecipes(t *testing.T) {
	withoutBus(t)
	got := make(chan posted, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case got <- posted{r.URL.Path, r.Header.Clone(), string(body)}:
		default: // the test reads only some: a poll's posts pile up
		}
		if strings.HasPrefix(r.URL.Path, "/broken/") {
			http.Error(rw, "oops", http.StatusInternalServerError)
			return
		}
		io.WriteString(rw, "ok")
	}))
	t.Cleanup(srv.Close)
	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.setOptions("notify-backend", "tmux", "notify-webhook", srv.URL+"/paneherd-SECRETTOPIC", "notify-webhook-format", "ntfy")
	attachViewer(t, r, "main")
	r.start()
	var shown strings.Builder // everything paneherd printed, for the secrets' check
	notifyTest := func() (string, int) {
		out, errs, code := r.paneherd("notify", "test")
		shown.WriteString(out + errs)
		return out, code
	}

	// ntfy to a phone.
	if out, code := notifyTest(); code != 0 || !strings.Contains(out, "delivered by webhook\n") {
		t.Fatalf("notify test: exit %d\n%s", code, out)
	}
	p := nextPost(t, got)
	if p.path != "/paneherd-SECRETTOPIC" || p.header.Get("X-Title") != "paneherd test notification" ||
		p.header.Get("X-Priority") != "default" || !strings.HasPrefix(p.header.Get("X-Tags"), "bell") ||
		p.body != "If you can read this, paneherd can reach you." {
		t.Errorf("the ntfy stand-in got %s %v %q", p.path, p.header, p.body)
	}
	checks, _ := r.doctor()
	wantLine(t, checks, "notify-webhook", "ok", "posts ntfy messages to "+srv.URL+"/…")

	// A Slack channel.
	r.setOptions("notify-webhook", srv.URL+"/services/T0/B0/SECRETTOPIC", "notify-webhook-format", "slack")
	r.paneherd("hook", "reload") // the daemon reads the options again
	r.waitFor("the Slack stand-in gets the test notification", 10*time.Second, func() bool {
		notifyTest()
		return nextPost(t, got).path == "/services/T0/B0/SECRETTOPIC"
	})
	// The stand-in has the last one: send one more and read it whole.
	notifyTest()
	if p := nextPost(t, got); p.header.Get("Content-Type") != "application/json" ||
		p.body != `{"text":"*paneherd test notification*\nIf you can read this, paneherd can reach you."}` {
		t.Errorf("the Slack stand-in got %v %q", p.header, p.body)
	}

	// A server that fails, then a URL paneherd cannot post to.
	r.setOptions("notify-webhook", srv.URL+"/broken/SECRETTOPIC?auth=SECRETQUERY", "notify-webhook-format", "json")
	r.paneherd("hook", "reload")
	want := "not delivered by webhook: " + srv.URL + "/… answered 500 Internal Server Error (oops): the server failed"
	r.waitFor("notify test says the server failed", 10*time.Second, func() bool {
		out, _ := notifyTest()
		return strings.Contains(out, want)
	})
	r.setOptions("notify-webhook", "ftp://me:SECRETPASS@example.com/SECRETTOPIC")
	r.paneherd("hook", "reload")
	r.waitFor("doctor says the URL is not http(s)", 10*time.Second, func() bool {
		checks, _ := r.doctor()
		return len(checks["notify-webhook"]) == 1 && strings.Contains(checks["notify-webhook"][0].text, "must start with http:// or https://")
	})

	doctorOut, _, _ := r.paneherd("doctor")
	history, _, _ := r.paneherd("history")
	status, _, _ := r.paneherd("status")
	for what, text := range map[string]string{"notify test": shown.String(), "doctor": doctorOut, "history": history,
		"status": status, "the daemon's log": r.daemonLog()} {
		for _, secret := range []string{"SECRETTOPIC", "SECRETQUERY", "SECRETPASS"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s shows %s:\n%s", what, secret, text)
			}
		}
	}
	if !strings.Contains(history, "webhook") {
		t.Errorf("history names no webhook delivery:\n%s", history)
	}
}

// nextPost is the next request a stand-in received.
func nextPost(t *testing.T, got <-chan posted) posted {
	t.Helper()
	select {
	case p := <-got:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook stand-in received nothing")
		return posted{}
	}
}
