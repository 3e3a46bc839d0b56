package notify

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/tracker"
	"github.com/paneherd/paneherd/internal/wire"
)

// moment is one change of a pane's state on a timeline, and whether it must notify.
type moment struct {
	at       float64 // seconds from the timeline's start
	to       string
	rule     string // "" : a pack's rule on the screen
	summary  string
	notifies bool
}

// play hands the notifier a pane's changes as the watcher would (Transition, with the
// pane's record before each) and says which ones it let through.
func play(t *testing.T, n *Notifier, pane string, timeline []moment) []bool {
	t.Helper()
	t0 := time.Unix(1_700_000_000, 0)
	rec := wire.Pane{ID: pane, Name: "api", Session: "work", State: "BUSY", Since: t0.Add(-time.Minute)}
	var got []bool
	for _, m := range timeline {
		at := t0.Add(time.Duration(m.at * float64(time.Second)))
		rule := m.rule
		if rule == "" {
			rule = "screen-rule"
		}
		n.Transition(rec, wire.Transition{At: at, PaneID: pane, From: rec.State, To: m.to, Rule: rule, Summary: m.summary})
		rec.State, rec.Since = m.to, at
		select {
		case <-n.in:
			got = append(got, true)
		default:
			got = append(got, false)
		}
	}
	return got
}

// TestDialogDedupeTimelines: a dialog is notified once while it waits, and again when it
// appears anew. The dedupe is for the same unanswered dialog: a pane out of it for a blip
// (a hook's spinner, a redraw) and back shows the same one, whatever words the hook and
// the screen gave it; a pane that left it for real (answered: BUSY, READY) and shows a
// dialog again asks anew, even in the same words and after other news of the pane.
func TestDialogDedupeTimelines(t *testing.T) {
	const (
		rmBuild = "Bash: rm -rf build"
		push    = "Bash: git push"
	)
	geminiHook := tracker.HookRule("gemini", "Notification")
	tests := []struct {
		name     string
		timeline []moment
	}{
		{"answered, then asked again in the same words", []moment{
			{0, "NEEDS_CONFIRMATION", "", rmBuild, true},
			{5, "BUSY", "", "", false},
			{30, "NEEDS_CONFIRMATION", "", rmBuild, true},
		}},
		{"a dialog after three other notifications of the pane within a minute", []moment{
			{0, "ERROR", "", "API error 500", true},
			{2, "BUSY", "", "", false},
			{15, "READY", "", "", true},
			{16, "BUSY", "", "", false},
			{40, "STALLED", "", "", true},
			{41, "BUSY", "", "", false},
			{45, "NEEDS_CONFIRMATION", "", rmBuild, true},
			{46, "BUSY", "", "", false},
			{50, "ERROR", "", "API error 502", false}, // the pane's budget holds back the rest
		}},
		{"Gemini with hooks: the hook's claim, its spinner, the dialog", []moment{
			{0, "NEEDS_CONFIRMATION", geminiHook, "Gemini CLI needs your permission", true},
			{0.4, "BUSY", "", "Executing Hooks", false},
			{1.1, "NEEDS_CONFIRMATION", "", rmBuild, false},
		}},
		{"a redraw's blip with the same dialog back", []moment{
			{0, "NEEDS_CONFIRMATION", "", rmBuild, true},
			{10, "UNKNOWN", "", "", false},
			{10.5, "NEEDS_CONFIRMATION", "", rmBuild, false},
		}},
		{"blips one after another stay one dialog", []moment{
			{0, "NEEDS_CONFIRMATION", geminiHook, "Gemini CLI needs your permission", true},
			{0.3, "BUSY", "", "Executing Hooks", false},
			{1, "NEEDS_CONFIRMATION", "", rmBuild, false},
			{20, "BUSY", "", "", false},
			{21, "NEEDS_CONFIRMATION", "", rmBuild, false},
		}},
		{"another dialog right after a blip", []moment{
			{0, "NEEDS_CONFIRMATION", "", rmBuild, true},
			{10, "BUSY", "", "", false},
			{11, "NEEDS_CONFIRMATION", "", push, true},
		}},
		{"out for longer than a blip", []moment{
			{0, "NEEDS_CONFIRMATION", "", rmBuild, true},
			{10, "BUSY", "", "", false},
			{12, "NEEDS_CONFIRMATION", "", rmBuild, true},
		}},
		{"the same dialog blips back after the dedupe window: a reminder", []moment{
			{0, "NEEDS_CONFIRMATION", "", rmBuild, true},
			{100, "BUSY", "", "", false},
			{100.5, "NEEDS_CONFIRMATION", "", rmBuild, true},
		}},
		{"an error comes back in the same words inside the window", []moment{
			{0, "ERROR", "", "API error 500", true},
			{5, "BUSY", "", "", false},
			{30, "ERROR", "", "API error 500", false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, allOn())
			got := play(t, n, "%1", tt.timeline)
			for i, m := range tt.timeline {
				if got[i] != m.notifies {
					t.Errorf("at %gs -> %s %q: notified %v, want %v", m.at, m.to, m.summary, got[i], m.notifies)
				}
			}
		})
	}
}

// TestDialogsOfOnePaneDoNotDedupeAnother: the dialog rule is per pane.
func TestDialogsOfOnePaneDoNotDedupeAnother(t *testing.T) {
	n := New(&fakeBackend{name: "desktop"}, &fakeBackend{name: "tmux"}, allOn())
	a := play(t, n, "%1", []moment{{0, "NEEDS_CONFIRMATION", "", "Bash: ls", true}})
	b := play(t, n, "%2", []moment{{0.5, "NEEDS_CONFIRMATION", "", "Bash: ls", true}})
	if !a[0] || !b[0] {
		t.Errorf("two panes asking the same: notified %v and %v, want both", a[0], b[0])
	}
}
