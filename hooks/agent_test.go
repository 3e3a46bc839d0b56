package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/state"
)

// TestReadAgentEventOnRealPayloads reads what the real CLIs sent (testdata/agents, see its
// README) and checks what each means for the pane.
func TestReadAgentEventOnRealPayloads(t *testing.T) {
	const (
		B = state.Busy
		R = state.Ready
		N = state.NeedsConfirmation
	)
	tests := []struct {
		file, agent, event string
		wantEvent          string
		want               Claim
		summary            string
	}{
		{"claude-UserPromptSubmit.json", Claude, "UserPromptSubmit", "UserPromptSubmit", Claim{B, false, true}, "prompt submitted"},
		{"claude-PreToolUse.json", Claude, "PreToolUse", "PreToolUse", Claim{B, false, true}, "running Bash"},
		{"claude-Notification-permission_prompt.json", Claude, "Notification", "Notification", Claim{N, false, true}, "Claude needs your permission"},
		{"claude-PostToolUse.json", Claude, "PostToolUse", "PostToolUse", Claim{B, false, true}, "ran Bash"},
		{"claude-Stop.json", Claude, "Stop", "Stop", Claim{R, true, true}, "turn finished"},
		{"claude-SessionStart.json", Claude, "SessionStart", "SessionStart", Claim{"", false, true}, "session started"},
		{"claude-SessionEnd.json", Claude, "SessionEnd", "SessionEnd", Claim{"", false, true}, "session ended"},
		{"codex-agent-turn-complete.json", Codex, "notify", "agent-turn-complete", Claim{R, true, true}, "turn finished"},
		{"codex-agent-turn-complete-title.json", Codex, "notify", "agent-turn-complete", Claim{}, "turn finished"},
		{"gemini-SessionStart.json", Gemini, "SessionStart", "SessionStart", Claim{"", false, true}, "session started"},
		{"gemini-BeforeAgent.json", Gemini, "BeforeAgent", "BeforeAgent", Claim{B, false, true}, "prompt submitted"},
		{"gemini-BeforeTool.json", Gemini, "BeforeTool", "BeforeTool", Claim{B, false, true}, "running run_shell_command"},
		{"gemini-Notification-ToolPermission.json", Gemini, "Notification", "Notification", Claim{N, false, true}, "Tool Confirm Shell Command requires execution"},
		{"gemini-AfterTool.json", Gemini, "AfterTool", "AfterTool", Claim{B, false, true}, "ran run_shell_command"},
		{"gemini-AfterAgent.json", Gemini, "AfterAgent", "AfterAgent", Claim{R, true, true}, "turn finished"},
		{"gemini-SessionEnd.json", Gemini, "SessionEnd", "SessionEnd", Claim{"", false, true}, "session ended"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "agents", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			a := ReadAgentEvent(tt.agent, tt.event, raw)
			if a.Problem != "" {
				t.Fatalf("problem: %s", a.Problem)
			}
			if a.Event != tt.wantEvent || a.Summary != tt.summary {
				t.Errorf("event %q summary %q, want %q %q", a.Event, a.Summary, tt.wantEvent, tt.summary)
			}
			if got := a.Claim(); got != tt.want {
				t.Errorf("claim %+v, want %+v", got, tt.want)
			}
			// What the daemon receives is what was read.
			a.Pane = "%3"
			back, ok := AgentEventOf(a.Datagram())
			if file, named := a.FileDatagram(); named {
				f, _ := AgentFileOf(file)
				back.Transcript, back.Model = f.Transcript, f.Model
			}
			if !ok || back != a {
				t.Errorf("datagram round trip: %+v, want %+v", back, a)
			}
		})
	}
}

func TestAgentEventIdleNotificationClaimsNothing(t *testing.T) {
	a := ReadAgentEvent(Claude, "Notification", []byte(`{"hook_event_name":"Notification","message":"Claude is waiting for your input","notification_type":"idle_prompt"}`))
	if c := a.Claim(); c.Known {
		t.Errorf("idle_prompt claims %+v; it says nothing of the state", c)
	}
}

func TestAgentEventBadPayloadIsAProblem(t *testing.T) {
	a := ReadAgentEvent(Claude, "Stop", []byte("not json at all\n"))
	if !strings.Contains(a.Problem, "not JSON") {
		t.Fatalf("problem %q", a.Problem)
	}
	if c := a.Claim(); c.Known {
		t.Errorf("an unreadable payload claims %+v", c)
	}
	if _, ok := AgentEventOf(a.Datagram()); !ok {
		t.Error("the problem did not survive the datagram")
	}
}

// TestAgentEventBadPayloadQuotesNoSecret: the start of a payload that is not JSON, which
// goes to the daemon's log, has its secrets masked, one cut short by the quote included.
func TestAgentEventBadPayloadQuotesNoSecret(t *testing.T) {
	for _, payload := range []string{
		"ghp_1234567890abcdefghijABCDEFGHIJ123456 is not json",
		"export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEF",
	} {
		a := ReadAgentEvent(Claude, "Stop", []byte(payload))
		if !strings.Contains(a.Problem, "masked") || strings.Contains(a.Problem, "1234567890") || strings.Contains(a.Problem, "abcdefgh") {
			t.Errorf("problem %q quotes the secret of %q", a.Problem, payload)
		}
	}
}

// The file an agent writes its conversation to, and the model, as the real hooks name
// them, reach the daemon; Codex's names its thread, whose session file the hook finds.
func TestAgentEventTranscript(t *testing.T) {
	for _, tc := range []struct{ file, agent, event, transcript, model string }{
		{"claude-SessionStart.json", Claude, "SessionStart",
			"/tmp/labhooks-home/claude/.claude/projects/-tmp-labhooks-work/aed87194-2eca-4c63-ab1e-2c78a03209a2.jsonl", "claude-opus-4-8[1m]"},
		{"claude-Stop.json", Claude, "Stop",
			"/tmp/labhooks-home/claude/.claude/projects/-tmp-labhooks-work/aed87194-2eca-4c63-ab1e-2c78a03209a2.jsonl", ""},
		{"gemini-AfterAgent.json", Gemini, "AfterAgent",
			"/tmp/labhooks-home/gemini/.gemini/tmp/work/chats/session-2026-11-25T04-58-cee121c3.jsonl", ""},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "agents", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		file, _ := ReadAgentEvent(tc.agent, tc.event, raw).FileDatagram()
		back, _ := AgentFileOf(file)
		if back.Transcript != tc.transcript || back.Model != tc.model {
			t.Errorf("%s: transcript %q model %q, want %q %q", tc.file, back.Transcript, back.Model, tc.transcript, tc.model)
		}
	}
	raw, _ := os.ReadFile(filepath.Join("testdata", "agents", "codex-agent-turn-complete.json"))
	if got := CodexThread(raw); got != "01a21111-7842-71b0-8e2c-72562c92da10" {
		t.Errorf("codex thread %q", got)
	}
}

// A path travels whole or not at all: blanks kept as they are, one too long or with a
// newline dropped (a cut path names another file), a relative one dropped.
func TestAgentDatagramPath(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/home/a  b/t.jsonl", "/home/a  b/t.jsonl"},
		{"/home/a\nb/t.jsonl", ""},
		{"/" + strings.Repeat("d", maxPath), ""},
		{"t.jsonl", ""},
		{"../x/t.jsonl", ""},
	} {
		file, _ := AgentEvent{Agent: Claude, Event: "Stop", Transcript: tc.path, Model: "m"}.FileDatagram()
		back, ok := AgentFileOf(file)
		if !ok || back.Transcript != tc.want {
			t.Errorf("path %q came as %q, want %q", tc.path, back.Transcript, tc.want)
		}
	}
	if _, ok := (AgentEvent{Agent: Claude, Event: "Stop"}).FileDatagram(); ok {
		t.Error("a file datagram for a hook that named no file nor model")
	}
}

// oldDaemonReads is how a daemon before AgentFile took a datagram as an agent event: at
// most 1024 bytes, exactly 6 fields.
func oldDaemonReads(b []byte) bool {
	if len(b) == 0 || len(b) > 1024 {
		return false
	}
	parts := strings.Split(string(b), "\n")
	return parts[0] == Agent && len(parts) == 7
}

// An agent event naming a file still reads as one to a daemon older than AgentFile, which
// ignores the file's datagram; this one reads both, and an event with more fields than 6
// (a later paneherd's).
func TestAgentDatagramOldDaemon(t *testing.T) {
	long := strings.Repeat("é line\n", 500)
	a := AgentEvent{Agent: Claude, Event: "Stop", Pane: "%1", Kind: long, Summary: long, Problem: long,
		Transcript: "/" + strings.Repeat("p", maxPath-1), Model: "claude-opus-4-8[1m]"}
	if b := a.Datagram().encode(); !oldDaemonReads(b) {
		t.Errorf("an older daemon does not read the agent event (%d bytes)", len(b))
	}
	a.Problem = ""
	file, ok := a.FileDatagram()
	if oldDaemonReads(file.encode()) {
		t.Error("an older daemon takes the file's datagram for an agent event")
	}
	back, _ := decode(file.encode())
	if f, ok2 := AgentFileOf(back); !ok || !ok2 || f.Transcript != a.Transcript || f.Model != a.Model || f.Pane != "%1" {
		t.Errorf("file datagram read back as %+v", f)
	}
	later := Event{Name: Agent, Args: []string{Claude, "Stop", "%1", "", "turn finished", "", "more"}}
	if ev, ok := AgentEventOf(later); !ok || ev.Event != "Stop" {
		t.Error("an agent event of 7 fields is not read")
	}
}

// A long multi-line summary (a message the agent wrote) is cut to one bounded line, and
// the datagram stays under the limit whatever the fields hold.
func TestAgentDatagramFits(t *testing.T) {
	long := strings.Repeat("é line\n", 500)
	a := AgentEvent{Agent: long, Event: long, Pane: long, Kind: long, Summary: long, Problem: long,
		Transcript: "/" + strings.Repeat("p", maxPath-1), Model: long}
	d := a.Datagram()
	if n := len(d.encode()); n > agentDatagram {
		t.Fatalf("datagram of %d bytes", n)
	}
	if file, _ := a.FileDatagram(); len(file.encode()) > maxDatagram {
		t.Fatalf("file datagram of %d bytes", len(file.encode()))
	}
	back, ok := AgentEventOf(d)
	if !ok {
		t.Fatal("datagram not read back")
	}
	if strings.Contains(back.Summary, "\n") || !utf8.ValidString(back.Summary) || !strings.HasSuffix(back.Summary, "…") {
		t.Errorf("summary %q", back.Summary)
	}
}
