package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/state"
)

// fakeKey is shaped like an Anthropic key; it must never reach the server.
const fakeKey = "sk-ant-api03-fakefakefake-0123456789abcdefghijklmnopqrstuv"

// fake is an OpenAI-compatible server on loopback that answers every request with reply
// and records what it was sent.
type fake struct {
	t     *testing.T
	srv   *httptest.Server
	reply func(w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	method, path, auth string
	body               []byte
}

func newFake(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) *fake {
	f := &fake{t: t, reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.seen = append(f.seen, seenRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), body})
		f.mu.Unlock()
		f.reply(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// content answers with text as the first choice's message.
func content(text string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": text}}},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}
}

const goodAnswer = `{"state":"NEEDS_CONFIRMATION","summary":"Asks to run rm -rf build","actions_needed":["approve or deny the command"]}`

func (f *fake) client(cfg Config) *Client {
	cfg.URL = f.srv.URL + "/v1/"
	if cfg.Model == "" {
		cfg.Model = "test/model"
	}
	return New(cfg)
}

func TestReadSendsMaskedScreen(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	c := f.client(Config{Key: "or-test-key"})
	screen := "$ export ANTHROPIC_API_KEY=" + fakeKey + "\n> Run rm -rf build? (y/n)\n"
	if _, err := c.Read(context.Background(), screen); err != nil {
		t.Fatal(err)
	}
	if len(f.seen) != 1 {
		t.Fatalf("%d requests, want 1", len(f.seen))
	}
	got := f.seen[0]
	if got.method != http.MethodPost || got.path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", got.method, got.path)
	}
	if got.auth != "Bearer or-test-key" {
		t.Errorf("Authorization %q, want the bearer key", got.auth)
	}
	if strings.Contains(string(got.body), fakeKey) || strings.Contains(string(got.body), fakeKey[10:]) {
		t.Errorf("the request carries the key:\n%s", got.body)
	}
	var req struct {
		Model          string `json:"model"`
		Messages       []chatMessage
		ResponseFormat struct{ Type string } `json:"response_format"`
		Temperature    *float64
	}
	if err := json.Unmarshal(got.body, &req); err != nil {
		t.Fatalf("request body: %v\n%s", err, got.body)
	}
	if req.Model != "test/model" || req.ResponseFormat.Type != "json_object" || req.Temperature == nil || *req.Temperature != 0 {
		t.Errorf("request asks model %q, format %q, temperature %v; want test/model, json_object, 0", req.Model, req.ResponseFormat.Type, req.Temperature)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Fatalf("messages %+v, want system then user", req.Messages)
	}
	user := req.Messages[1].Content
	if !strings.Contains(user, "…[masked ") || !strings.Contains(user, "Run rm -rf build? (y/n)") {
		t.Errorf("the user message is not the masked screen: %q", user)
	}
	if !strings.Contains(req.Messages[0].Content, "NEEDS_CONFIRMATION") {
		t.Errorf("the system prompt does not name the states: %q", req.Messages[0].Content)
	}
}

func TestReadNoKeyNoAuthorization(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	if _, err := f.client(Config{}).Read(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if f.seen[0].auth != "" {
		t.Errorf("Authorization %q sent without a key", f.seen[0].auth)
	}
}

func TestReadAnswer(t *testing.T) {
	want := Answer{State: state.NeedsConfirmation, Summary: "Asks to run rm -rf build", ActionsNeeded: []string{"approve or deny the command"}}
	for _, tc := range []struct {
		name, reply string
		want        Answer
	}{
		{"bare", goodAnswer, want},
		{"json fence", "```json\n" + goodAnswer + "\n```", want},
		{"plain fence", "```\n" + goodAnswer + "\n```", want},
		{"lower-case state, blank action, no actions", `{"state":"ready","summary":" Idle at its prompt ","actions_needed":[" "]}`,
			Answer{State: state.Ready, Summary: "Idle at its prompt", ActionsNeeded: []string{}}},
		{"unknown is an answer", `{"state":"UNKNOWN","summary":"A log scrolling"}`,
			Answer{State: state.Unknown, Summary: "A log scrolling", ActionsNeeded: []string{}}},
		{"actions a string: one action", `{"state":"NEEDS_CONFIRMATION","summary":"Asks for a number","actions_needed":"type 14"}`,
			Answer{State: state.NeedsConfirmation, Summary: "Asks for a number", ActionsNeeded: []string{"type 14"}}},
		{"actions a blank string: none", `{"state":"READY","summary":"Idle","actions_needed":" "}`,
			Answer{State: state.Ready, Summary: "Idle", ActionsNeeded: []string{}}},
		{"actions null: none", `{"state":"READY","summary":"Idle","actions_needed":null}`,
			Answer{State: state.Ready, Summary: "Idle", ActionsNeeded: []string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, content(tc.reply))
			got, err := f.client(Config{}).Read(context.Background(), "screen")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("answer %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	blocked := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	status := func(code int, body string) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) { http.Error(w, body, code) }
	}
	raw := func(body string) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }
	}
	long := strings.Repeat("x", 121)
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter, r *http.Request)
		is    error  // errors.Is, when set
		text  string // in the message
	}{
		{"timeout", blocked, context.DeadlineExceeded, "no answer within 200ms"},
		{"500", status(500, `{"error":{"message":"upstream overloaded"}}`), nil, "HTTP 500 Internal Server Error: upstream overloaded"},
		{"401", status(401, "no auth"), nil, "HTTP 401"},
		{"body not JSON", raw("<html>"), ErrBadAnswer, "not JSON"},
		{"error with 200", raw(`{"error":{"message":"model not found"}}`), nil, "model not found"},
		{"no choices", raw(`{"choices":[]}`), ErrBadAnswer, "choices[0]"},
		{"content not JSON", content("The agent waits for approval."), ErrBadAnswer, "not a JSON object"},
		{"content truncated", content(`{"state":"READY","summ`), ErrBadAnswer, "not a JSON object"},
		{"unknown state", content(`{"state":"WAITING","summary":"s"}`), ErrBadAnswer, `"WAITING"`},
		{"watcher's state", content(`{"state":"STALLED","summary":"s"}`), ErrBadAnswer, `"STALLED"`},
		{"empty summary", content(`{"state":"READY","summary":"  "}`), ErrBadAnswer, "empty summary"},
		{"no summary", content(`{"state":"READY"}`), ErrBadAnswer, "empty summary"},
		{"long summary", content(`{"state":"READY","summary":"` + long + `"}`), ErrBadAnswer, "summary of 121 characters"},
		{"two-line summary", content(`{"state":"READY","summary":"a\nb"}`), ErrBadAnswer, "line break"},
		{"long action", content(`{"state":"READY","summary":"s","actions_needed":["` + long + `"]}`), ErrBadAnswer, "action of 121"},
		{"six actions", content(`{"state":"READY","summary":"s","actions_needed":["a","b","c","d","e","f"]}`), ErrBadAnswer, "6 actions_needed"},
		{"actions a number", content(`{"state":"READY","summary":"s","actions_needed":14}`), ErrBadAnswer, "neither a list of strings nor a string: 14"},
		{"actions a list of numbers", content(`{"state":"READY","summary":"s","actions_needed":[1,2]}`), ErrBadAnswer, "neither a list of strings nor a string"},
		{"actions a long string", content(`{"state":"READY","summary":"s","actions_needed":"` + long + `"}`), ErrBadAnswer, "action of 121"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.reply)
			got, err := f.client(Config{Timeout: 200 * time.Millisecond}).Read(context.Background(), "screen")
			if err == nil {
				t.Fatalf("no error; answer %+v", got)
			}
			if !reflect.DeepEqual(got, Answer{}) {
				t.Errorf("an answer with the error: %+v", got)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.text) || !strings.HasPrefix(err.Error(), "llm: test/model at ") {
				t.Errorf("error %q, want it to name the model and say %q", err, tc.text)
			}
		})
	}
}

func TestReadNoModel(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	c := New(Config{URL: f.srv.URL})
	if _, err := c.Read(context.Background(), "x"); !errors.Is(err, ErrNoModel) || c.Requests() != 0 {
		t.Errorf("error %v after %d requests, want ErrNoModel and none", err, c.Requests())
	}
}

func TestReadCaches(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	c := f.client(Config{})
	first, err := c.Read(context.Background(), "same screen")
	if err != nil {
		t.Fatal(err)
	}
	first.ActionsNeeded[0] = "changed by the caller"
	second, err := c.Read(context.Background(), "same screen")
	if err != nil {
		t.Fatal(err)
	}
	if c.Requests() != 1 {
		t.Errorf("%d requests for the same screen twice, want 1", c.Requests())
	}
	if second.ActionsNeeded[0] != "approve or deny the command" {
		t.Errorf("the cached answer changed with the caller's copy: %+v", second)
	}
	// Two screens that differ only in a secret mask alike: one request.
	c.Read(context.Background(), "key "+fakeKey)
	c.Read(context.Background(), "key "+strings.Replace(fakeKey, "fake", "FAKE", 1))
	if c.Requests() != 2 {
		t.Errorf("%d requests, want 2: screens that mask alike share an answer", c.Requests())
	}
}

func TestReadCacheBounded(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	c := f.client(Config{CacheSize: 2, PerMinute: 100})
	for _, s := range []string{"a", "b", "a", "c", "a", "b"} { // b is dropped for c
		if _, err := c.Read(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	if c.Requests() != 4 {
		t.Errorf("%d requests, want 4 (a, b, c, b again)", c.Requests())
	}
}

func TestReadErrorNotCached(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) })
	c := f.client(Config{})
	c.Read(context.Background(), "s")
	if _, err := c.Read(context.Background(), "s"); err == nil || c.Requests() != 2 {
		t.Errorf("error %v after %d requests, want an error and 2", err, c.Requests())
	}
}

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestReadPerMinute(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	c := f.client(Config{PerMinute: 3})
	clk := &clock{time.Date(2026, 5, 1, 12, 0, 0, 0, time.Local)}
	c.now = clk.now
	for i := range 3 {
		if _, err := c.Read(context.Background(), fmt.Sprint("screen ", i)); err != nil {
			t.Fatalf("screen %d: %v", i, err)
		}
	}
	if _, err := c.Read(context.Background(), "screen 3"); !errors.Is(err, ErrLimited) {
		t.Errorf("the 4th screen in a minute: %v, want ErrLimited", err)
	}
	if c.Requests() != 3 {
		t.Errorf("%d requests, want 3", c.Requests())
	}
	if _, err := c.Read(context.Background(), "screen 0"); err != nil {
		t.Errorf("a cached screen while limited: %v", err)
	}
	clk.t = clk.t.Add(time.Minute)
	if _, err := c.Read(context.Background(), "screen 3"); err != nil {
		t.Errorf("a minute later: %v", err)
	}
}

func TestReadDailyBudget(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	c := f.client(Config{PerMinute: 100, PerDay: 3})
	clk := &clock{time.Date(2026, 5, 1, 23, 0, 0, 0, time.Local)}
	c.now = clk.now
	for i := range 3 {
		clk.t = clk.t.Add(5 * time.Minute)
		if _, err := c.Read(context.Background(), fmt.Sprint("screen ", i)); err != nil {
			t.Fatalf("screen %d: %v", i, err)
		}
	}
	clk.t = clk.t.Add(5 * time.Minute)
	if _, err := c.Read(context.Background(), "screen 3"); !errors.Is(err, ErrLimited) || !strings.Contains(err.Error(), "daily budget") {
		t.Errorf("the 4th screen of the day: %v, want ErrLimited (daily budget)", err)
	}
	if c.Requests() != 3 {
		t.Errorf("%d requests, want 3", c.Requests())
	}
	clk.t = time.Date(2026, 5, 2, 0, 0, 1, 0, time.Local)
	if _, err := c.Read(context.Background(), "screen 3"); err != nil {
		t.Errorf("after local midnight: %v", err)
	}
}

func TestReadConcurrent(t *testing.T) {
	f := newFake(t, content(goodAnswer))
	c := f.client(Config{PerMinute: 1000, PerDay: 1000})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { c.Read(context.Background(), fmt.Sprint("screen ", i%5)) })
	}
	wg.Wait()
	if n := c.Requests(); n < 5 || n > 20 {
		t.Errorf("%d requests for 5 screens", n)
	}
}
