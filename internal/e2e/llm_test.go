package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/dbustest"
	"github.com/paneherd/paneherd/internal/tracker"
)

// fakeModel is an OpenAI-compatible chat-completions server on loopback: it answers each
// request with the reply the test set, and keeps the requests.
type fakeModel struct {
	mu       sync.Mutex
	reply    func() (int, string) // status, message content
	hang     bool                 // answer nothing until the client gives up
	requests []string
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, string(body))
	status, content := f.reply()
	hang := f.hang
	f.mu.Unlock()
	if hang {
		<-r.Context().Done()
		return
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
}

// serveModel serves a fake model answering every request with status and content, on
// loopback, for the test's life; it returns the model and its API's URL.
func serveModel(t *testing.T, status int, content string) (*fakeModel, string) {
	model := &fakeModel{reply: func() (int, string) { return status, content }}
	srv := httptest.NewServer(model)
	t.Cleanup(srv.Close)
	return model, srv.URL + "/v1"
}

func (f *fakeModel) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// TestModelReadsTheScreensNoPackReads: with @paneherd-llm on against a local server, an
// UNKNOWN screen is sent (masked) and the model's reading becomes the pane's state, said
// to be the model's; a screen the packs read is never sent; a bad answer leaves the pack's.
func TestModelReadsTheScreensNoPackReads(t *testing.T) {
	model, url := serveModel(t, 200, `{"state":"NEEDS_CONFIRMATION","summary":"asks whether to deploy","actions_needed":["answer y or n"]}`)
	r := newRig(t)
	odd := filepath.Join(t.TempDir(), "odd.txt")
	os.WriteFile(odd, []byte("Deploy build 42 to production?\nkey sk-ant-api03-Zx81kQ9mW2vR7tYp4LcN6bHj3DfGs5Ua0XeIo\n"), 0o644)
	known := r.tmux.NewSession("main", showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")))
	r.tmux.Run("set-option", "-p", "-t", known, "@paneherd-pack", "claude")
	unknown := r.tmux.NewWindow("main", "odd", showCommand(odd))
	r.tmux.Run("set-option", "-p", "-t", unknown, "@paneherd-pack", "claude")
	r.setOptions("llm", "on", "llm-url", url, "llm-model", "fake-model")
	r.start()
	r.waitFor("the model's reading shows", 30*time.Second, func() bool {
		p := r.status()[unknown]
		return p.State == "NEEDS_CONFIRMATION" && p.Rule == "model" && p.Witness == "model" && p.Summary == "asks whether to deploy"
	})
	r.waitState(known, "READY")
	if st := r.status()[known]; st.Witness != "screen" {
		t.Errorf("the pane its pack reads: %+v", st)
	}
	if n := model.count(); n != 1 {
		t.Errorf("%d requests; want one, for the one screen no pack reads", n)
	}
	var req struct {
		ResponseFormat struct{ Type string } `json:"response_format"`
		Messages       []struct{ Role, Content string }
	}
	json.Unmarshal([]byte(model.requests[0]), &req)
	user := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	if strings.Contains(model.requests[0], "Zx81kQ9mW2vR7tYp4LcN6bHj3DfGs5Ua0XeIo") || !strings.Contains(user, "Deploy build 42") ||
		!strings.Contains(user, "sk-a…[masked") || req.ResponseFormat.Type != "json_object" {
		t.Errorf("the request sent the key, not the masked screen, or did not ask for JSON:\n%s", model.requests[0])
	}
	hist, _, _ := r.paneherd("history", unknown, "--json")
	if !strings.Contains(hist, "asks whether to deploy") || !strings.Contains(hist, "(model)") {
		t.Errorf("history lacks the model's reading:\n%s", hist)
	}
}

// TestABadModelLeavesThePacksReading: an error or an answer that makes no sense is logged
// and dropped; the pane keeps its pack's UNKNOWN.
func TestABadModelLeavesThePacksReading(t *testing.T) {
	for _, c := range []struct {
		name    string
		status  int
		content string
		hang    bool
	}{
		{"server error", 500, "", false},
		{"not JSON", 200, "I think it is ready", false},
		{"unknown state", 200, `{"state":"DANCING","summary":"it dances"}`, false},
		{"no answer within the timeout", 200, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			model, url := serveModel(t, c.status, c.content)
			model.hang = c.hang // before the daemon starts: no request yet
			r := newRig(t)
			odd := filepath.Join(t.TempDir(), "odd.txt")
			os.WriteFile(odd, []byte("Reticulating splines\n"), 0o644)
			unknown := r.tmux.NewSession("main", showCommand(odd))
			r.tmux.Run("set-option", "-p", "-t", unknown, "@paneherd-pack", "claude")
			r.setOptions("llm", "on", "llm-url", url, "llm-model", "fake-model")
			r.start()
			r.waitFor("the daemon has the model's failure", 40*time.Second, func() bool {
				logs, _ := filepath.Glob(filepath.Join(r.home, "state", "paneherd", "*", "daemon.log"))
				if len(logs) == 0 {
					return false
				}
				b, _ := os.ReadFile(logs[0])
				return strings.Contains(string(b), "no usable answer")
			})
			if st := r.status()[unknown]; st.State != "UNKNOWN" || st.Witness == "model" {
				t.Errorf("after a bad answer the pane shows %+v; want the pack's UNKNOWN", st)
			}
		})
	}
}

// TestModelOnWithoutAKeyIsOneLogLine: on, remote, no key: one clear line, and paneherd
// works as without it.
func TestModelOnWithoutAKeyIsOneLogLine(t *testing.T) {
	r := newRig(t)
	pane := r.tmux.NewSession("main", showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")))
	r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", "claude")
	r.setOptions("llm", "on", "llm-model", "some/model")
	for i, kv := range r.env {
		if strings.HasPrefix(kv, "OPENROUTER_API_KEY=") || strings.HasPrefix(kv, "OPENAI_API_KEY=") {
			r.env[i] = "PANEHERD_UNSET_" + kv
		}
	}
	r.start()
	r.waitState(pane, "READY")
	logs, _ := filepath.Glob(filepath.Join(r.home, "state", "paneherd", "*", "daemon.log"))
	if len(logs) != 1 {
		t.Fatalf("daemon logs: %v", logs)
	}
	b, _ := os.ReadFile(logs[0])
	if n := strings.Count(string(b), "no key was found"); n != 1 {
		t.Errorf("%d lines about the missing key; want 1:\n%s", n, tail(string(b), 20))
	}
}

// agentHook runs an agent's hook as the agent would in pane: `paneherd hook agent AGENT
// EVENT` with the payload a real CLI sent.
func (r *rig) agentHook(pane, agent, event, payload string) {
	r.t.Helper()
	b, err := os.ReadFile(payload)
	if err != nil {
		r.t.Fatal(err)
	}
	env := r.env
	r.env = append(slices.Clone(env), "TMUX_PANE="+pane)
	defer func() { r.env = env }()
	if out, errs, code := r.paneherd("hook", "agent", agent, event, string(b)); code != 0 || out != "" {
		r.t.Fatalf("hook agent: exit %d, %q %q", code, out, errs)
	}
}

// TestModelSettlesAHookDispute: Claude's permission hook says a dialog waits, the screen
// (its pack reads READY) says otherwise; once the hook's claim has run out the model is
// asked about that screen, and its reading, siding with the hook, holds. Before the
// dispute the screen, which its pack reads, is never sent.
func TestModelSettlesAHookDispute(t *testing.T) {
	model, url := serveModel(t, 200, `{"state":"NEEDS_CONFIRMATION","summary":"asks to run the deploy script","actions_needed":["approve or deny"]}`)
	r := newRig(t)
	pane := r.tmux.NewSession("main", showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")))
	r.tmux.Run("set-option", "-p", "-t", pane, "@paneherd-pack", "claude")
	// Notifications ask nothing here: the one request counted is the dispute's.
	r.setOptions("llm", "on", "llm-url", url, "llm-model", "fake-model", "llm-notify-wait", "0s")
	r.start()
	r.waitFor("READY by the screen", 20*time.Second, func() bool {
		p := r.status()[pane]
		return p.State == "READY" && p.Witness == "screen"
	})
	if n := model.count(); n != 0 {
		t.Fatalf("%d requests about a screen the pack reads", n)
	}
	r.agentHook(pane, "claude", "Notification", agentPayload(t, "claude-Notification-permission_prompt.json"))
	r.waitFor("the model's reading of the disputed screen", tracker.Fresh+20*time.Second, func() bool {
		p := r.status()[pane]
		return p.State == "NEEDS_CONFIRMATION" && p.Witness == "model" && p.Summary == "asks to run the deploy script"
	})
	if n := model.count(); n != 1 {
		t.Errorf("%d requests; want one, for the disputed screen", n)
	}
}

// TestModelWordsADialogsNotification: with the model on, the desktop notification of a
// dialog carries the model's summary and what it asks of the person.
func TestModelWordsADialogsNotification(t *testing.T) {
	bus := dbustest.Bus(t)
	server := dbustest.Serve(t, bus)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
	model, url := serveModel(t, 200, `{"state":"NEEDS_CONFIRMATION","summary":"Claude asks to run echo hello-from-fake-model","actions_needed":["approve with prefix Y, or deny with prefix X"]}`)
	r := newRig(t)
	api := r.tmux.NewSession("main", showCommand(fixture(t, "claude/16-BUSY-thinking-before-first-token.txt")))
	r.tmux.Run("rename-window", "-t", api, "api")
	r.tmux.Run("set-option", "-p", "-t", api, "@paneherd-pack", "claude")
	r.setOptions("llm", "on", "llm-url", url, "llm-model", "fake-model", "llm-notify-wait", "5s")
	r.start()
	r.waitState(api, "BUSY")
	r.paneShows(t, api, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")
	r.waitFor("one desktop notification", 30*time.Second, func() bool { return len(server.Received()) == 1 })
	got := server.Received()[0]
	want := "Claude asks to run echo hello-from-fake-model\n→ approve with prefix Y, or deny with prefix X\nin main:0.0"
	if got.Summary != "api needs your confirmation" || got.Body != want {
		t.Errorf("notification = %+v; want the model's words:\n%s", got, want)
	}
	if n := model.count(); n != 1 {
		t.Errorf("%d requests; want one, for the dialog's notification", n)
	}
}

// TestModelAnswersAreCachedAndLimited: two panes showing the same screen no pack reads
// cost one request (the second is answered from the cache); with one question a minute,
// a third screen is not asked about, and keeps its pack's UNKNOWN.
func TestModelAnswersAreCachedAndLimited(t *testing.T) {
	model, url := serveModel(t, 200, `{"state":"BUSY","summary":"reticulates splines"}`)
	r := newRig(t)
	dir := t.TempDir()
	odd, other := filepath.Join(dir, "odd.txt"), filepath.Join(dir, "other.txt")
	os.WriteFile(odd, []byte("Reticulating splines\n"), 0o644)
	os.WriteFile(other, []byte("Herding llamas\n"), 0o644)
	a := r.tmux.NewSession("main", showCommand(odd))
	b := r.tmux.NewWindow("main", "b", showCommand(odd))
	for _, p := range []string{a, b} {
		r.tmux.Run("set-option", "-p", "-t", p, "@paneherd-pack", "claude")
	}
	r.setOptions("llm", "on", "llm-url", url, "llm-model", "fake-model", "llm-per-minute", "1")
	r.start()
	r.waitFor("both panes show the model's reading", 30*time.Second, func() bool {
		st := r.status()
		return st[a].Witness == "model" && st[b].Witness == "model"
	})
	c := r.tmux.NewWindow("main", "c", showCommand(other))
	r.tmux.Run("set-option", "-p", "-t", c, "@paneherd-pack", "claude")
	r.waitFor("the third screen is over the limit", 30*time.Second, func() bool {
		return strings.Contains(r.daemonLog(), "request limit reached")
	})
	// A new window's screen moves as it draws (BUSY, screen-changing) before it holds still.
	r.waitFor("the pane over the limit keeps its pack's UNKNOWN", 20*time.Second, func() bool {
		st := r.status()[c]
		return st.State == "UNKNOWN" && st.Witness != "model"
	})
	if n := model.count(); n != 1 {
		t.Errorf("%d requests; want 1 (one screen, cached for the second pane; the third over the limit)", n)
	}
}

// TestClassifyWithModel: `classify --llm FILE` prints the pack's reading beside the
// model's; without a model or a key it says what to set, and asks nothing.
func TestClassifyWithModel(t *testing.T) {
	model, url := serveModel(t, 200, `{"state":"NEEDS_CONFIRMATION","summary":"asks whether to deploy","actions_needed":["answer y or n"]}`)
	r := newRig(t)
	odd := filepath.Join(t.TempDir(), "odd.txt")
	os.WriteFile(odd, []byte("Deploy build 42 to production? [y/n]\n"), 0o644)
	base := r.env
	run := func(extra ...string) (string, string, int) {
		r.env = append(slices.Clone(base), extra...)
		defer func() { r.env = base }()
		return r.paneherd("classify", "--pack", "claude", "--llm", odd)
	}
	out, errs, code := run("PANEHERD_LLM_URL="+url, "PANEHERD_LLM_MODEL=fake-model")
	if code != 0 || !strings.Contains(out, "UNKNOWN") || !strings.Contains(out, "NEEDS_CONFIRMATION") ||
		!strings.Contains(out, "asks whether to deploy") || !strings.Contains(out, "answer y or n") {
		t.Errorf("classify --llm: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := run("PANEHERD_LLM_URL=" + url); code != 2 || !strings.Contains(errs, "PANEHERD_LLM_MODEL") {
		t.Errorf("no model: exit %d, %q; want 2 naming PANEHERD_LLM_MODEL", code, errs)
	}
	_, errs, code = run("PANEHERD_LLM_MODEL=some/model", "OPENROUTER_API_KEY=", "OPENAI_API_KEY=")
	if code != 1 || !strings.Contains(errs, "OPENROUTER_API_KEY") {
		t.Errorf("no key for OpenRouter: exit %d, %q; want 1 naming OPENROUTER_API_KEY", code, errs)
	}
	if n := model.count(); n != 1 {
		t.Errorf("%d requests; want 1", n)
	}
}
