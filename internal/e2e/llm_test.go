package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeModel is an OpenAI-compatible chat-completions server on loopback: it answers each
// request with the reply the test set, and keeps the requests.
type fakeModel struct {
	mu       sync.Mutex
	reply    func() (int, string) // status, message content
	requests []string
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, string(body))
	status, content := f.reply()
	f.mu.Unlock()
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
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
	model := &fakeModel{reply: func() (int, string) {
		return 200, `{"state":"NEEDS_CONFIRMATION","summary":"asks whether to deploy","actions_needed":["answer y or n"]}`
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	r := newRig(t)
	odd := filepath.Join(t.TempDir(), "odd.txt")
	os.WriteFile(odd, []byte("Deploy build 42 to production?\nkey sk-ant-api03-Zx81kQ9mW2vR7tYp4LcN6bHj3DfGs5Ua0XeIo\n"), 0o644)
	known := r.tmux.NewSession("main", showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")))
	r.tmux.Run("set-option", "-p", "-t", known, "@paneherd-pack", "claude")
	unknown := r.tmux.NewWindow("main", "odd", showCommand(odd))
	r.tmux.Run("set-option", "-p", "-t", unknown, "@paneherd-pack", "claude")
	r.setOptions("llm", "on", "llm-url", srv.URL+"/v1", "llm-model", "fake-model")
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
	}{
		{"server error", 500, ""},
		{"not JSON", 200, "I think it is ready"},
		{"unknown state", 200, `{"state":"DANCING","summary":"it dances"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := &fakeModel{reply: func() (int, string) { return c.status, c.content }}
			srv := httptest.NewServer(model)
			defer srv.Close()
			r := newRig(t)
			odd := filepath.Join(t.TempDir(), "odd.txt")
			os.WriteFile(odd, []byte("Reticulating splines\n"), 0o644)
			unknown := r.tmux.NewSession("main", showCommand(odd))
			r.tmux.Run("set-option", "-p", "-t", unknown, "@paneherd-pack", "claude")
			r.setOptions("llm", "on", "llm-url", srv.URL+"/v1", "llm-model", "fake-model")
			r.start()
			r.waitFor("the daemon has the model's failure", 30*time.Second, func() bool {
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
