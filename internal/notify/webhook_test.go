package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// hookRequest is what a loopback hook server received.
type hookRequest struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
	User, Password      string
}

// recordingHook starts a loopback server that records each request and answers status
// with answer.
func recordingHook(t *testing.T, status int, answer string) (*httptest.Server, <-chan hookRequest) {
	t.Helper()
	got := make(chan hookRequest, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		user, password, _ := r.BasicAuth()
		got <- hookRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(body), user, password}
		rw.WriteHeader(status)
		io.WriteString(rw, answer)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// secretURL is the server's URL with a credential in each place one can hide: user info,
// path and query. None of the SECRET words may appear in anything paneherd shows.
func secretURL(base string) string {
	u, _ := url.Parse(base)
	u.User = url.UserPassword("me", "SECRETPASS")
	u.Path = "/hooks/SECRETPATH"
	u.RawQuery = "auth=SECRETQUERY"
	return u.String()
}

func assertHidden(t *testing.T, what, s string) {
	t.Helper()
	for _, secret := range []string{"SECRETPASS", "SECRETPATH", "SECRETQUERY", "SECRETREDIRECT", "me:"} {
		if strings.Contains(s, secret) {
			t.Errorf("%s shows %s: %q", what, secret, s)
		}
	}
}

func mustWebhook(t *testing.T, rawURL, format string) Webhook {
	t.Helper()
	w, err := NewWebhook(rawURL, format, "devbox")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func receive(t *testing.T, got <-chan hookRequest) hookRequest {
	t.Helper()
	select {
	case r := <-got:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the hook server received nothing")
		return hookRequest{}
	}
}

var asking = Notification{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), PaneID: "%3", Name: "api", Target: "work:1.0",
	Event: NeedsConfirmation, State: "NEEDS_CONFIRMATION", Title: "api needs your confirmation",
	Body: "Run npm test? <y/n> & go\nin work:1.0", Critical: true, From: "BUSY", Summary: "Run npm test? <y/n> & go"}

var finishedWork = Notification{At: asking.At, PaneID: "%4", Name: "web", Target: "work:2.0", Event: Finished, State: "READY",
	Title: "web finished (ran 2m0s)", Body: "in work:2.0"}

// TestWebhookFormats checks each format's request byte for byte: method, path and query
// kept, headers (those net/http adds for the connection aside), body.
func TestWebhookFormats(t *testing.T) {
	tests := []struct {
		name, format string
		n            Notification
		header       http.Header
		body         string
	}{
		{"json", "json", asking,
			http.Header{"Content-Type": {"application/json"}},
			`{"event":"needs-confirmation","state":"NEEDS_CONFIRMATION","previous_state":"BUSY","name":"api","pane":"%3",` +
				`"target":"work:1.0","summary":"Run npm test? \u003cy/n\u003e \u0026 go","title":"api needs your confirmation",` +
				`"body":"Run npm test? \u003cy/n\u003e \u0026 go\nin work:1.0","critical":true,"host":"devbox","time":"2026-01-02T03:04:05Z"}`},
		{"ntfy dialog", "ntfy", asking,
			http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "X-Title": {"api needs your confirmation"},
				"X-Priority": {"urgent"}, "X-Tags": {"warning,devbox"}},
			"Run npm test? <y/n> & go\nin work:1.0"},
		{"ntfy finished", "ntfy", finishedWork,
			http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "X-Title": {"web finished (ran 2m0s)"},
				"X-Priority": {"default"}, "X-Tags": {"white_check_mark,devbox"}},
			"in work:2.0"},
		{"slack", "slack", asking,
			http.Header{"Content-Type": {"application/json"}},
			`{"text":"*api needs your confirmation*\nRun npm test? \u0026lt;y/n\u0026gt; \u0026amp; go\nin work:1.0"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, got := recordingHook(t, http.StatusOK, "ok")
			w := mustWebhook(t, secretURL(srv.URL), tt.format)
			if err := w.Send(context.Background(), tt.n); err != nil {
				t.Fatal(err)
			}
			r := receive(t, got)
			if r.Method != http.MethodPost || r.Path != "/hooks/SECRETPATH" || r.Query != "auth=SECRETQUERY" {
				t.Errorf("request %s %s?%s, want POST /hooks/SECRETPATH?auth=SECRETQUERY", r.Method, r.Path, r.Query)
			}
			if r.User != "me" || r.Password != "SECRETPASS" {
				t.Errorf("basic auth %q:%q, want the URL's user info", r.User, r.Password)
			}
			want := tt.header.Clone()
			want.Set("User-Agent", "paneherd")
			want.Set("Authorization", r.Header.Get("Authorization"))
			for _, transport := range []string{"Accept-Encoding", "Connection", "Content-Length"} {
				r.Header.Del(transport)
			}
			if !equalHeaders(r.Header, want) {
				t.Errorf("headers\n%v\nwant\n%v", r.Header, want)
			}
			if r.Body != tt.body {
				t.Errorf("body\n%q\nwant\n%q", r.Body, tt.body)
			}
		})
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, "\x00") != strings.Join(b[k], "\x00") {
			return false
		}
	}
	return true
}

// hostileNote is what a pane's name and screen may hold: shell syntax, quotes, escape
// sequences, bidi controls, a token, header and RFC 2047 injection, Slack markup.
var hostileNote = Notification{At: asking.At, PaneID: "%9", Event: Failed, State: "ERROR", Critical: true,
	Name:    "evil\x1b]0;pwned\x07\u202e",
	Target:  "s:w\r.0",
	Summary: "\x1b[2J<!here> ghp_abcdefghijklmnopqrstuvwxyz0123456789 \u202e",
	Title:   "=?utf-8?q?=1B]0;x=07?= $(touch x) \"q\" \\ \x1b[2J\x07 <!channel> \u202eevil\r\nX-Injected: 1",
	Body: "ran `rm -rf` \x1b[31mred\x1b[0m <@U123> &amp; token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n" +
		"\u2066bidi\u2069 \x9b\u200b end\r\nX-Evil: yes"}

// TestWebhookHostileText: what reaches a server, read back as the service reads it
// (JSON decoded, ntfy's RFC 2047 header decoded, Slack's entities undone), is Outbound's
// text exactly: no control or invisible character, no token, no injected header or markup.
func TestWebhookHostileText(t *testing.T) {
	out := Outbound(hostileNote)
	for _, format := range WebhookFormats {
		t.Run(format, func(t *testing.T) {
			srv, got := recordingHook(t, http.StatusOK, "ok")
			if err := mustWebhook(t, srv.URL+"/h", format).Send(context.Background(), hostileNote); err != nil {
				t.Fatal(err)
			}
			r := receive(t, got)
			if r.Header.Get("X-Injected") != "" || r.Header.Get("X-Evil") != "" {
				t.Errorf("injected headers: %v", r.Header)
			}
			var texts map[string]string
			switch format {
			case "json":
				var ev map[string]any
				if err := json.Unmarshal([]byte(r.Body), &ev); err != nil {
					t.Fatal(err)
				}
				texts = map[string]string{"title": out.Title, "body": out.Body, "name": out.Name, "target": out.Target, "summary": out.Summary}
				for k, want := range texts {
					if ev[k] != want {
						t.Errorf("%s = %q, want %q", k, ev[k], want)
					}
				}
				texts = map[string]string{}
				for _, k := range []string{"title", "body", "name", "target", "summary"} {
					texts[k], _ = ev[k].(string)
				}
			case "ntfy":
				title, err := new(mime.WordDecoder).DecodeHeader(r.Header.Get("X-Title"))
				if err != nil || title != out.Title || r.Body != out.Body {
					t.Errorf("ntfy reads title %q (%v) body %q, want %q and %q", title, err, r.Body, out.Title, out.Body)
				}
				texts = map[string]string{"title": title, "body": r.Body}
			case "slack":
				var msg struct{ Text string }
				if err := json.Unmarshal([]byte(r.Body), &msg); err != nil {
					t.Fatal(err)
				}
				if strings.ContainsAny(msg.Text, "<>") {
					t.Errorf("Slack markup reaches Slack: %q", msg.Text)
				}
				shown := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(msg.Text)
				if want := "*" + out.Title + "*\n" + out.Body; shown != want {
					t.Errorf("Slack shows %q, want %q", shown, want)
				}
				texts = map[string]string{"text": shown}
			}
			for k, s := range texts {
				assertClean(t, k, s)
			}
		})
	}
}

func assertClean(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' || r == '\u202e' || r == '\u2066' || r == '\u200b' {
			t.Errorf("%s keeps %U: %q", what, r, s)
		}
	}
	if strings.Contains(s, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("%s has the token in clear: %q", what, s)
	}
}

// TestWebhookHangingServer: a server that never answers (or starts an error and never
// finishes it) costs the caller its deadline, the context's or the backend's own, and no more.
func TestWebhookHangingServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/half/SECRETPATH":
			rw.WriteHeader(http.StatusBadGateway)
			io.WriteString(rw, "starting to say why")
			rw.(http.Flusher).Flush()
		case "/endless/SECRETPATH":
			rw.WriteHeader(http.StatusInternalServerError)
			for tick := time.NewTicker(10 * time.Millisecond); ; <-tick.C {
				if _, err := io.WriteString(rw, strings.Repeat("x", 1024)); err != nil {
					return
				}
				rw.(http.Flusher).Flush()
			}
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handlers
	tests := []struct {
		name, path   string
		ctx, own     time.Duration
		wantInError  string
		wantDeadline bool
	}{
		{"the context's deadline", "/hooks/SECRETPATH", 300 * time.Millisecond, 10 * time.Second, "no answer from http://127.0.0.1", true},
		{"its own timeout", "/hooks/SECRETPATH", 0, 300 * time.Millisecond, "within 300ms", true},
		{"an error that stops midway", "/half/SECRETPATH", 300 * time.Millisecond, 10 * time.Second, "502 Bad Gateway (starting to say why)", false},
		{"an error that never ends", "/endless/SECRETPATH", 0, 10 * time.Second, "500 Internal Server Error (xxx", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustWebhook(t, srv.URL+tt.path+"?auth=SECRETQUERY", "ntfy")
			w.timeout = tt.own
			// Without a deadline of its own the test would wait for the backend's for ever,
			// should that be broken: 5 s stands in for it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if tt.ctx > 0 {
				ctx, cancel = context.WithTimeout(ctx, tt.ctx)
				defer cancel()
			}
			start := time.Now()
			err := w.Send(ctx, asking)
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), tt.wantInError) || errors.Is(err, context.DeadlineExceeded) != tt.wantDeadline {
				t.Fatalf("err = %v, want one saying %q (deadline: %v)", err, tt.wantInError, tt.wantDeadline)
			}
			if took > 3*time.Second {
				t.Errorf("Send took %s past a 300ms deadline", took)
			}
			assertHidden(t, "the error", err.Error())
		})
	}
}

// TestWebhookFailedAnswers: a server's error answer is an error naming its status, with
// the start of what it said (masked, one line, without the URL's secrets) and what to do.
func TestWebhookFailedAnswers(t *testing.T) {
	tests := []struct {
		name   string
		status int
		answer string
		want   string
	}{
		{"500", 500, "boom at /hooks/SECRETPATH for me:SECRETPASS\n\x1b[2Jtoken ghp_abcdefghijklmnopqrstuvwxyz0123456789",
			"answered 500 Internal Server Error (boom at … for … ?[2Jtoken ghp_"},
		{"403", 403, `{"code":40301,"http":403,"error":"forbidden"}`,
			`answered 403 Forbidden ({"code":40301,"http":403,"error":"forbidden"}): check @paneherd-notify-webhook`},
		{"404 with nothing said", 404, "", "answered 404 Not Found: check @paneherd-notify-webhook and its format"},
		{"long answer", 500, strings.Repeat("x", 10000), "(" + strings.Repeat("x", 117) + "…): the server failed; paneherd does not retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := recordingHook(t, tt.status, tt.answer)
			err := mustWebhook(t, secretURL(srv.URL), "json").Send(context.Background(), asking)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "abcdefghijklmnopqrstuvwxyz") {
				t.Errorf("not one masked line: %q", err)
			}
			assertHidden(t, "the error", err.Error())
		})
	}
}

// TestWebhookRefusesRedirect: a redirect, to a non-loopback address here, is reported and
// not followed: no connection to it is even tried.
func TestWebhookRefusesRedirect(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var hits int
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				mu.Lock()
				hits++
				mu.Unlock()
				http.Redirect(rw, r, "http://203.0.113.1/hook?token=SECRETREDIRECT", status)
			}))
			t.Cleanup(srv.Close)
			w := mustWebhook(t, secretURL(srv.URL), "slack")
			dials := recordDials(w, srv.Listener.Addr().String())
			err := w.Send(context.Background(), asking)
			want := fmt.Sprintf("answered %d %s", status, http.StatusText(status))
			if err == nil || !strings.Contains(err.Error(), "a redirect to http://203.0.113.1/…: not followed") ||
				!strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want a redirect to http://203.0.113.1/… not followed", err)
			}
			assertHidden(t, "the error", err.Error())
			if got := dials(); len(got) != 1 || got[0] != srv.Listener.Addr().String() || hits != 1 {
				t.Errorf("dialled %v, %d requests; want only the hook's server, once", got, hits)
			}
		})
	}
}

// recordDials makes w's transport note each address it dials and refuse all but allow,
// and returns what it noted.
func recordDials(w Webhook, allow string) func() []string {
	var mu sync.Mutex
	var dials []string
	w.client.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dials = append(dials, addr)
		mu.Unlock()
		if addr != allow {
			return nil, errors.New("the test refuses to dial " + addr)
		}
		return new(net.Dialer).DialContext(ctx, network, addr)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), dials...)
	}
}

// TestWebhookNoServer: a refused connection says so, URL redacted.
func TestWebhookNoServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	err = mustWebhook(t, secretURL("http://"+addr), "ntfy").Send(context.Background(), asking)
	if err == nil || !strings.HasPrefix(err.Error(), "webhook: post to http://"+addr+"/…: ") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want a refused post to http://%s/…", err, addr)
	}
	assertHidden(t, "the error", err.Error())
}

// TestNewWebhookChecks: bad settings are one line each, saying what to write, and never
// repeat the URL's secret parts.
func TestNewWebhookChecks(t *testing.T) {
	tests := []struct {
		name, url, format, want string
	}{
		{"empty", " ", "json", "@paneherd-notify-webhook is empty"},
		{"ftp", "ftp://me:SECRETPASS@host/SECRETPATH", "json", "must start with http:// or https://"},
		{"no scheme", "ntfy.sh/SECRETPATH", "ntfy", "must start with http:// or https://"},
		{"host:port, no scheme", "localhost:8080/SECRETPATH", "ntfy", "must start with http:// or https://"},
		{"no host", "https:///SECRETPATH", "json", "names no host"},
		{"a port only", "https://:443/SECRETPATH", "json", "names no host"},
		{"opaque", "https:SECRETPATH", "json", "names no host"},
		{"unparseable", "http://[::1/SECRETPATH?auth=SECRETQUERY", "json", "is not a URL (missing ']' in host)"},
		{"control character", "https://ntfy.sh/SECRETPATH\x1b[2J", "json", "is not a URL (net/url: invalid control character in URL)"},
		{"unknown format", "https://ntfy.sh/SECRETPATH", "xml", `unknown @paneherd-notify-webhook-format "xml": use json, ntfy or slack`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewWebhook(tt.url, tt.format, "devbox")
			if err == nil || !strings.HasPrefix(err.Error(), "webhook: ") || !strings.Contains(err.Error(), tt.want) ||
				strings.ContainsAny(err.Error(), "\n\x1b") {
				t.Fatalf("err = %v, want one line saying %q", err, tt.want)
			}
			assertHidden(t, "the error", err.Error())
		})
	}
	for _, ok := range []struct{ url, format, want string }{
		{" https://ntfy.sh/topic ", "", "json"},
		{"HTTPS://ntfy.sh/topic", " NTFY ", "ntfy"},
		{"http://127.0.0.1:8080", "slack", "slack"},
	} {
		w, err := NewWebhook(ok.url, ok.format, "devbox")
		if err != nil || w.format != ok.want {
			t.Errorf("NewWebhook(%q, %q) = format %q, %v; want %q", ok.url, ok.format, w.format, err, ok.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://ntfy.sh/paneherd-SECRETPATH":                         "https://ntfy.sh/…",
		"https://hooks.slack.com/services/T0/B0/SECRETPATH":           "https://hooks.slack.com/…",
		"https://me:SECRETPASS@ntfy.example.com/t?auth=SECRETQUERY#x": "https://ntfy.example.com/…",
		"http://me:SECRETPASS@127.0.0.1:8080":                         "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/":                                      "http://127.0.0.1:8080",
		"http://h/?q=SECRETQUERY":                                     "http://h/…",
		"http://h#SECRETPATH":                                         "http://h/…",
		"ntfy.sh/SECRETPATH":                                          "an unreadable URL",
		"":                                                            "an unreadable URL",
		"http://[::1/SECRETPATH":                                      "an unreadable URL",
	} {
		if got := RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestWebhookDescribe says where notifications go, and through which proxy, redacted.
func TestWebhookDescribe(t *testing.T) {
	w := mustWebhook(t, "https://me:SECRETPASS@ntfy.sh/SECRETPATH?auth=SECRETQUERY", "ntfy")
	proxy := &w.client.Transport.(*http.Transport).Proxy
	*proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	if got, err := w.Describe(context.Background()); err != nil || got != "posts ntfy messages to https://ntfy.sh/…" {
		t.Errorf("Describe = %q, %v", got, err)
	}
	*proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://me:SECRETPASS@proxy.example:3128") }
	if got, _ := w.Describe(context.Background()); got != "posts ntfy messages to https://ntfy.sh/… through the proxy http://proxy.example:3128" {
		t.Errorf("Describe = %q", got)
	}
	if w.Name() != "webhook" {
		t.Errorf("Name = %q", w.Name())
	}
}

// TestExtrasBuildTheWebhook: @paneherd-notify-webhook turns the webhook on through the
// notifier's registry, and doctor's line shows its URL redacted; a bad one is a single
// line that names neither the URL's secrets nor the webhook twice.
func TestExtrasBuildTheWebhook(t *testing.T) {
	cfg := Config{Backend: "auto", Webhook: "https://ntfy.sh/SECRETPATH", WebhookFormat: "ntfy"}
	backends, problems := Extras(cfg, ExtraEnv{Host: "devbox"})
	if len(backends) != 1 || backends[0].Name() != "webhook" || len(problems) != 0 {
		t.Fatalf("Extras = %v, %v; want the webhook", backends, problems)
	}
	st := Describe(context.Background(), backends, problems)
	if len(st) != 1 || st[0].Err != nil || !strings.HasPrefix(st[0].Text, "posts ntfy messages to https://ntfy.sh/…") {
		t.Errorf("doctor's line %+v", st)
	}
	cfg.Webhook = "ftp://me:SECRETPASS@host/SECRETPATH"
	backends, problems = Extras(cfg, ExtraEnv{Host: "devbox"})
	if len(backends) != 0 || len(problems) != 1 ||
		problems[0].Error() != "webhook: @paneherd-notify-webhook must start with http:// or https:// (e.g. https://ntfy.sh/TOPIC)" {
		t.Fatalf("Extras = %v, %v; want the webhook's one-line problem", backends, problems)
	}
}
