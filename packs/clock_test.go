package packs

import (
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
)

// A pack's clock is read on the whole screen, ignored footers included; the lowest match
// counts, and its first group is the clock's text.
func TestResultClock(t *testing.T) {
	const body = `
ignore = '^status: '
clock = '(\d\d:\d\d:\d\d)$'
[[rules]]
name = "working"
state = "BUSY"
match = '^working'
`
	p, err := Parse("p", "p.toml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	noGroup, err := Parse("q", "q.toml", []byte(strings.Replace(body, `(\d\d:\d\d:\d\d)$`, `\d\d:\d\d$`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, screen, want string
		pack               *Pack
	}{
		{"in an ignored footer", "working\n\nstatus: main 10:04:59", "10:04:59", p},
		{"the lowest of two", "started 09:00:00\nworking\nstatus: main 10:05:00", "10:05:00", p},
		{"none on screen", "working\nstatus: main", "", p},
		{"without a group, the whole match", "working\nstatus: 10:05:00", "05:00", noGroup},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := screen.Parse(tc.screen)
			if got := tc.pack.Classify(sc).Clock; got != tc.want {
				t.Errorf("Classify: clock %q, want %q", got, tc.want)
			}
			if got := tc.pack.Explain(sc).Result.Clock; got != tc.want {
				t.Errorf("Explain: clock %q, want %q", got, tc.want)
			}
		})
	}
	if c := mustBuiltin(t, "claude").Classify(screen.Parse("✶ Hatching… (2s · ↓ 23 tokens)\n❯")).Clock; c != "" {
		t.Errorf("claude names no clock, yet read %q", c)
	}
}

func mustBuiltin(t *testing.T, name string) *Pack {
	t.Helper()
	p, err := Load("").Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
