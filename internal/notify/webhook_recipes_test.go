package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// docs/notifications.md's recipes, each against a loopback stand-in that reads the request as the
// real service does, and shows what a person would see.

// ntfyMessage is what a phone subscribed to the topic shows.
type ntfyMessage struct {
	Topic, Title, Message string
	Priority              int
	Tags                  []string
	Attachment            bool // the body came as a file, not as the notification's text
}

// ntfyStandIn reads a publish request as ntfy's server does (docs.ntfy.sh/publish): each
// parameter from its X- header, then its aliases, then the query; header values RFC 2047
// decoded; priority by number or name; a message over 4096 bytes kept as an attachment.
func ntfyStandIn(t *testing.T) (*httptest.Server, <-chan ntfyMessage) {
	t.Helper()
	got := make(chan ntfyMessage, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		priority, ok := map[string]int{"": 3, "1": 1, "min": 1, "2": 2, "low": 2, "3": 3, "default": 3,
			"4": 4, "high": 4, "5": 5, "max": 5, "urgent": 5}[ntfyParam(r, "x-priority", "priority", "prio", "p")]
		if r.Method != http.MethodPost && r.Method != http.MethodPut || !ok {
			rw.WriteHeader(http.StatusBadRequest)
			io.WriteString(rw, `{"code":40007,"http":400,"error":"invalid priority"}`)
			return
		}
		m := ntfyMessage{Topic: strings.Trim(r.URL.Path, "/"), Title: ntfyParam(r, "x-title", "title", "ti", "t"),
			Message: string(body), Priority: priority, Attachment: len(body) > 4096 || !utf8.Valid(body)}
		if tags := ntfyParam(r, "x-tags", "tags", "tag", "ta"); tags != "" {
			m.Tags = strings.Split(tags, ",")
		}
		got <- m
		json.NewEncoder(rw).Encode(map[string]any{"event": "message", "topic": m.Topic})
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func ntfyParam(r *http.Request, names ...string) string {
	for _, name := range names {
		if v := r.Header.Get(name); v != "" {
			if decoded, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
				v = decoded
			}
			return strings.TrimSpace(v)
		}
	}
	for _, name := range names {
		if v := r.URL.Query().Get(name); v != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TestRecipeNtfyToAPhone: docs/notifications.md's ntfy recipe. A dialog rings the phone at urgent
// priority with a warning sign, finished work at the default one with a check mark, a
// non-ASCII title arrives as written, and a burst of a hundred panes is still a
// notification's text, not an attachment.
func TestRecipeNtfyToAPhone(t *testing.T) {
	srv, got := ntfyStandIn(t)
	w := mustWebhook(t, srv.URL+"/paneherd-k3x9q7wz", "ntfy")
	var burst []Notification
	for i := range 100 {
		burst = append(burst, Notification{Title: fmt.Sprintf("worker-%03d needs your confirmation", i),
			Target: fmt.Sprintf("fleet:%d.0", i), Event: NeedsConfirmation, Critical: true})
	}
	tests := []struct {
		name string
		n    Notification
		want ntfyMessage
	}{
		{"a dialog", asking, ntfyMessage{"paneherd-k3x9q7wz", asking.Title, asking.Body, 5, []string{"warning", "devbox"}, false}},
		{"finished work", finishedWork, ntfyMessage{"paneherd-k3x9q7wz", finishedWork.Title, finishedWork.Body, 3, []string{"white_check_mark", "devbox"}, false}},
		{"a title in UTF-8", Notification{Event: Failed, Critical: true, Title: "größe ✓ failed =?", Body: "in a:1.0"},
			ntfyMessage{"paneherd-k3x9q7wz", "größe ✓ failed =?", "in a:1.0", 5, []string{"rotating_light", "devbox"}, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := w.Send(context.Background(), tt.n); err != nil {
				t.Fatal(err)
			}
			if m := <-got; fmt.Sprint(m) != fmt.Sprint(tt.want) {
				t.Errorf("the phone shows\n%+v\nwant\n%+v", m, tt.want)
			}
		})
	}
	t.Run("a burst of a hundred panes", func(t *testing.T) {
		if err := w.Send(context.Background(), summarize(burst)); err != nil {
			t.Fatal(err)
		}
		m := <-got
		if m.Attachment || !strings.HasPrefix(m.Message, "worker-000 needs your confirmation (fleet:0.0)\n") ||
			!strings.HasSuffix(m.Message, "…") || m.Title != "100 workers changed; some need you" {
			t.Errorf("the phone shows %q (attachment %v): %d bytes", m.Title, m.Attachment, len(m.Message))
		}
	})
}

// slackStandIn takes an incoming webhook's POST as Slack does: a JSON object with "text"
// (else 400 invalid_payload or no_text), answered "ok". It returns what the channel shows,
// the text with its entities undone, and whether any markup (<!channel>, <@U…>, <URL|…>)
// was left to act.
func slackStandIn(t *testing.T) (*httptest.Server, <-chan [2]string) {
	t.Helper()
	got := make(chan [2]string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var msg struct {
			Text *string `json:"text"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(rw, "invalid_payload", http.StatusBadRequest)
			return
		}
		if msg.Text == nil || *msg.Text == "" {
			http.Error(rw, "no_text", http.StatusBadRequest)
			return
		}
		markup := ""
		if strings.ContainsAny(*msg.Text, "<>") {
			markup = "markup"
		}
		got <- [2]string{strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(*msg.Text), markup}
		io.WriteString(rw, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// TestRecipeSlackChannel: docs/notifications.md's Slack recipe. The channel shows the title in bold
// and the body as written, and a screen's "<!channel>" stays text.
func TestRecipeSlackChannel(t *testing.T) {
	srv, got := slackStandIn(t)
	w := mustWebhook(t, srv.URL+"/services/T0000/B0000/XXXXXXXX", "slack")
	shout := Notification{Event: NeedsConfirmation, Critical: true, Title: "api needs your confirmation",
		Body: "echo <!channel> && curl <https://evil.example|docs>\nin work:1.0"}
	for _, n := range []Notification{asking, shout} {
		if err := w.Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		shown := <-got
		if want := "*" + n.Title + "*\n" + n.Body; shown[0] != want || shown[1] != "" {
			t.Errorf("the channel shows %q (%s), want %q as text", shown[0], shown[1], want)
		}
	}
}
