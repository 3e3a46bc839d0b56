package main

import (
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/wire"
)

func TestMenuArgsEscapeLabels(t *testing.T) {
	args := menuArgs("/dev/pts/3", []wire.Pane{{ID: "%9", Name: "#(rm -rf ~)", State: "READY", Summary: "100% done"}},
		func(p wire.Pane) string { return switchCommand("/dev/pts/3", p.ID) })
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
			args := menuArgs("", []wire.Pane{{ID: "%1", Name: "w", State: "READY", Summary: tt.summary}},
				func(p wire.Pane) string { return switchCommand("", p.ID) })
			if label := args[7]; !strings.HasSuffix(label, tt.suffix) {
				t.Errorf("label %q, want it to end in %q", label, tt.suffix)
			}
		})
	}
}

func TestMenuFitsAndKeepsNavigationKeys(t *testing.T) {
	var panes []wire.Pane
	for i := 0; i < 30; i++ {
		panes = append(panes, wire.Pane{ID: "%" + string(rune('a'+i)), Name: "-agent", Session: "s", WindowIndex: i, State: "READY"})
	}
	args := menuArgs("", panes, func(p wire.Pane) string { return switchCommand("", p.ID) })
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
