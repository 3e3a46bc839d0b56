package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Claude pane's SessionStart hook names its transcript (a real one, recorded in the
// agents lab, cut after its 950000-token answer) and the 1M model: status --json shows
// the context, the status table its column, the bar's badge the percent once
// @paneherd-context-show is reached.
func TestContextFromAClaudeTranscript(t *testing.T) {
	r := newRig(t)
	r.setOptions("context-show", "80")
	recorded, err := os.ReadFile(filepath.Join("..", "contextuse", "testdata", "claude-2.1.197.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(r.home, "session.jsonl")
	os.WriteFile(transcript, bytes.Join(bytes.SplitAfter(recorded, []byte("\n"))[:22], nil), 0o600)
	payload := filepath.Join(r.home, "session-start.json")
	body, _ := json.Marshal(map[string]string{"session_id": "s", "transcript_path": transcript, "cwd": r.home,
		"hook_event_name": "SessionStart", "source": "startup", "model": "claude-opus-4-8[1m]"})
	os.WriteFile(payload, body, 0o600)
	trigger := filepath.Join(r.home, "run-hook")
	cmd := strings.TrimSuffix(showCommand(fixture(t, "claude/06-READY-after-short-answer.txt")), "; exec sleep 100000") +
		"; while [ ! -e " + shellQuote(trigger) + " ]; do sleep 0.02; done; " +
		shellQuote(binary) + " hook agent claude SessionStart < " + shellQuote(payload) + "; exec sleep 100000"
	id := r.tmux.NewSession("agent", cmd)
	r.tmux.Run("set-option", "-p", "-t", id, "@paneherd-pack", "claude")
	r.start()
	r.waitFor("the pane is READY", 30*time.Second, func() bool { return r.status()[id].State == "READY" })
	if err := os.WriteFile(trigger, nil, 0o600); err != nil { // the hook runs once the daemon watches the pane
		t.Fatal(err)
	}
	r.waitFor("the transcript's context in status --json", 30*time.Second, func() bool {
		c := r.status()[id].Context
		pct, _ := c.UsedPct.Get()
		return c.Source == "transcript" && c.Tokens == 950000 && c.Window == 1_000_000 && pct == 95
	})
	r.waitFor("READY 95% in the badge", 30*time.Second, func() bool {
		short, _, _ := r.paneherd("status", "--short")
		return strings.Contains(short, ": READY 95%]")
	})
	table, _, _ := r.paneherd("status")
	if !strings.Contains(table, "CONTEXT") || !strings.Contains(table, " 95% ") {
		t.Errorf("status table:\n%s", table)
	}
}

// A managed worker given a handoff: its context (here its screen's figure) passes the mark
// while it works, and the handoff prompt is sent once it is READY, through send (its
// audit after the BUSY ended), and not again while the context stays past the mark; once
// the context fell below and passed again, it is sent again.
func TestHandoffSentOnceAtTheMark(t *testing.T) {
	r, project := superviseRig(t)
	log := filepath.Join(t.TempDir(), "standin.log")
	r.tmux.Run("set-environment", "-g", "STANDIN_LOG", log)
	r.start()
	w := r.create(project, "--pack", "standin", "--handoff-at", "85%", "--handoff-prompt", "hand off now").Worker
	if w.HandoffAt != 85 || w.HandoffPrompt != "hand off now" {
		t.Fatalf("worker %+v: handoff not registered", w)
	}
	read := func() string { b, _ := os.ReadFile(log); return string(b) }
	shows := func(pct int, st string) func() bool {
		return func() bool {
			p := r.status()[w.PaneID]
			got, known := p.Context.UsedPct.Get()
			return known && got == pct && p.State == st
		}
	}
	r.typeLine(w.PaneID, "ctx 50")
	r.waitFor("READY at 50%", 30*time.Second, shows(50, "READY"))
	r.typeLine(w.PaneID, "busy 90")
	r.waitFor("BUSY at 90%", 30*time.Second, shows(90, "BUSY"))
	r.waitFor("the handoff prompt", 30*time.Second, func() bool { return strings.Contains(read(), "hand off now") })
	var sent, ready time.Time
	// The stand-in reads the prompt before the send's outcome is audited and recorded.
	r.waitFor("the handoff's audit", 30*time.Second, func() bool {
		sent, ready = r.handoffAudit(r.worker(w.Name).LastTrigger, w.PaneID)
		return !sent.IsZero()
	})
	if ready.IsZero() || sent.Before(ready) {
		t.Errorf("handoff sent at %v, the worker READY after its work at %v: want the send audited after", sent, ready)
	}

	r.typeLine(w.PaneID, "ctx 95")
	r.waitFor("READY at 95%", 30*time.Second, shows(95, "READY"))
	r.typeLine(w.PaneID, "ctx 30")
	r.waitFor("armed again below the mark", 30*time.Second, func() bool { return !r.worker(w.Name).HandoffSent })
	r.typeLine(w.PaneID, "ctx 88")
	r.waitFor("the second handoff", 30*time.Second, func() bool { return strings.Count(read(), "hand off now") == 2 })
	r.waitFor("the second handoff's event", 30*time.Second, func() bool { return strings.Count(r.events(w.Name), "handoff: context") == 2 })
	got := read()
	first := got[strings.Index(got, "busy 90"):strings.Index(got, "ctx 30")]
	if n := strings.Count(first, "hand off now"); n != 1 {
		t.Errorf("%d handoff prompts before the context fell; want 1. Lines read:\n%s", n, got)
	}
	if events := r.events(w.Name); !strings.Contains(events, "handoff-armed") || strings.Contains(events, "nudged") {
		t.Errorf("worker events:\n%s", events)
	}
}

// handoffAudit is when the send of trigger id was audited, and when the pane last went
// READY before it.
func (r *rig) handoffAudit(id, pane string) (sent, ready time.Time) {
	r.t.Helper()
	out, _, _ := r.paneherd("history", pane, "--json", "--limit", "0")
	var h struct {
		Entries []struct {
			At           time.Time
			Kind, Detail string
		}
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		r.t.Fatalf("history: %v\n%s", err, out)
	}
	for _, e := range h.Entries {
		switch {
		case e.Kind == "send" && id != "" && strings.HasPrefix(e.Detail, id+" "):
			return e.At, ready
		case e.Kind == "state" && strings.HasPrefix(e.Detail, "BUSY -> READY"):
			ready = e.At
		}
	}
	return time.Time{}, ready
}
