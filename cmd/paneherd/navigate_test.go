package main

import (
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/store"
)

func TestNextAttention(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	panes := []store.Pane{
		{ID: "%1", State: "READY", Pack: "claude", Since: ago(time.Minute)},
		{ID: "%2", State: "NEEDS_CONFIRMATION", Pack: "codex", Since: ago(time.Minute)},
		{ID: "%3", State: "NEEDS_CONFIRMATION", Pack: "claude", Since: ago(time.Hour)},
		{ID: "%4", State: "ERROR", Pack: "gemini", Since: ago(time.Second)},
		{ID: "%5", State: "READY", Pack: "shell", Since: ago(time.Second)},
		{ID: "%6", State: "READY", Pack: "claude", Since: ago(time.Hour)},
		{ID: "%7", State: "BUSY", Pack: "claude", Since: ago(time.Second)},
		{ID: "%8", State: "READY", Pack: "codex", Since: ago(time.Second)},
	}
	// The longest-waiting dialog first, then the other dialog, the error, and the fresh
	// finishes, freshest first; idle shells, old finishes and busy panes never.
	order := []string{"%3", "%2", "%4", "%8", "%1"}
	current := "%7"
	for i := 0; i < len(order)+1; i++ {
		next := nextAttention(panes, current, now)
		if want := order[i%len(order)]; next == nil || next.ID != want {
			t.Fatalf("press %d from %s: got %v, want %s", i+1, current, next, want)
		}
		current = next.ID
	}
	if next := nextAttention(panes[4:5], "%5", now); next != nil {
		t.Errorf("only an idle shell: got %s, want nobody", next.ID)
	}
}

func TestMenuArgsEscapeLabels(t *testing.T) {
	args := menuArgs("/dev/pts/3", []store.Pane{{ID: "%9", Name: "#(rm -rf ~)", State: "READY", Summary: "100% done"}},
		func(p store.Pane) string { return switchCommand("/dev/pts/3", p.ID) })
	joined := strings.Join(args, "\x00")
	for _, want := range []string{"-c\x00/dev/pts/3", "####(rm -rf ~)", "\x001\x00", `switch-client -c "/dev/pts/3" -t %9`} {
		if !strings.Contains(joined, want) {
			t.Errorf("menu args %q lack %q", args, want)
		}
	}
}

// tmux expands a label, then appends "#[default] #[align=right](key)" and draws it: a label
// must not expand to a lone '#' at its end, which would escape that "#[default]" (a root
// prompt showed as "root@box:~#[default]"). A label ending in ';' would end tmux's command.
func TestMenuLabelEnds(t *testing.T) {
	tests := []struct{ name, summary, suffix string }{
		{"root prompt", "root@box:~#", "~####"},
		{"shell loop", "for i in 1 2;", `2\;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := menuArgs("", []store.Pane{{ID: "%1", Name: "w", State: "READY", Summary: tt.summary}},
				func(p store.Pane) string { return switchCommand("", p.ID) })
			if label := args[7]; !strings.HasSuffix(label, tt.suffix) {
				t.Errorf("label %q, want it to end in %q", label, tt.suffix)
			}
		})
	}
}

func TestMenuFitsAndKeepsNavigationKeys(t *testing.T) {
	var panes []store.Pane
	for i := 0; i < 30; i++ {
		panes = append(panes, store.Pane{ID: "%" + string(rune('a'+i)), Name: "-agent", Session: "s", WindowIndex: i, State: "READY"})
	}
	args := menuArgs("", panes, func(p store.Pane) string { return switchCommand("", p.ID) })
	items := (len(args) - 7) / 3
	if items != menuItems+1 {
		t.Errorf("%d menu lines, want %d items and a note", items, menuItems)
	}
	for i := 7; i+2 < len(args); i += 3 {
		if k := args[i+1]; k == "j" || k == "k" || k == "q" {
			t.Errorf("item key %q takes over menu navigation", k)
		}
		if strings.HasPrefix(args[i], "-") && args[i+1] != "" {
			t.Errorf("item %q would be disabled", args[i])
		}
	}
}
