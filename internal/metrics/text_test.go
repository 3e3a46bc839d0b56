package metrics

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestLabelValueEscapesForTheTextFormat(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "api", "api"},
		{"empty", "", ""},
		{"double quote", `say "hi"`, `say \"hi\"`},
		{"backslash", `C:\tmp`, `C:\\tmp`},
		{"line feed", "one\ntwo", `one\ntwo`},
		{"all three", "a\\\"\n", `a\\\"\n`},
		{"not escaped: tab, brace, comma, equals", "a\tb{c},d=e", "a\tb{c},d=e"},
		{"invalid UTF-8", "ok\xffok", "ok\uFFFDok"},
		{"UTF-8 kept", "wörker ✓", "wörker ✓"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := labelValue(tc.in)
			if got != tc.want {
				t.Errorf("labelValue(%q) = %q, want %q", tc.in, got, tc.want)
			}
			// The format's three escapes are Go's too: reading it back gives the value.
			if back, err := strconv.Unquote(`"` + got + `"`); err != nil || back != strings.ToValidUTF8(tc.in, "\uFFFD") {
				t.Errorf("%q does not read back as %q: %q, %v", got, tc.in, back, err)
			}
		})
	}
}

// sample is a series line of the text format: a name, labels with escaped values, a value.
var sample = regexp.MustCompile(`^[a-z_]+(\{[a-z_]+="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-z_]+="(?:[^"\\\n]|\\[\\"n])*")*\})? [0-9]+$`)

func TestAnyWorkerNameKeepsTheTextWellFormed(t *testing.T) {
	s := New()
	s.Restart("evil\"}\nparty 1\n# TYPE x counter\\", "its process exited with status 3")
	s.Notified("a,b=\"c\"")
	s.Drift("")
	got := text(t, s)
	if want := `paneherd_worker_restarts_total{why="exited",worker="evil\"}\nparty 1\n# TYPE x counter\\"} 1` + "\n"; !strings.Contains(got, want) {
		t.Errorf("missing %q in:\n%s", want, got)
	}
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if !strings.HasPrefix(line, "# HELP paneherd_") && !strings.HasPrefix(line, "# TYPE paneherd_") && !sample.MatchString(line) {
			t.Errorf("not a line of the text format: %q", line)
		}
	}
}

// The supervisor's texts (internal/supervisor: deathText, lost, ack.go, retire.go) come
// to a few kinds, so a scraper's series stay few.
func TestRestartWhyIsAKind(t *testing.T) {
	for _, tc := range []struct{ why, want string }{
		{"its process exited with status 3", "exited"},
		{"its process exited with status 0", "exited"},
		{"its process died (killed, or exit status unknown)", "died"},
		{"its pane is gone", "gone"},
		{"a prompt was not taken", "ack-timeout"},
		{"a person continued it", "continued"},
		{"ack-timeout", "ack-timeout"},
		{"exited", "exited"},
		{"", "other"},
		{"something new the supervisor says one day", "other"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			if got := restartKind(tc.why); got != tc.want {
				t.Errorf("restartKind(%q) = %q, want %q", tc.why, got, tc.want)
			}
		})
	}
}

func TestFamiliesWithNoSeriesAreLeftOut(t *testing.T) {
	got := text(t, New())
	for _, name := range []string{"paneherd_worker_restarts_total", "paneherd_reconcile_drifts_total", "paneherd_notifications_total"} {
		if strings.Contains(got, name) {
			t.Errorf("%s shows before anything was counted:\n%s", name, got)
		}
	}
	if !strings.Contains(got, "# TYPE paneherd_trigger_retries_total counter\npaneherd_trigger_retries_total 0\n") {
		t.Errorf("retries not at 0 from the start:\n%s", got)
	}
}

// Scrapers and tests see the same text for the same counts: metrics sorted by name, each
// one's series by their labels, whatever order they were counted in.
func TestTextIsSortedByMetricThenLabels(t *testing.T) {
	s := New()
	for _, w := range []string{"web", "api", "db"} {
		s.Restart(w, "exited")
	}
	s.Notified("test")
	s.Notified("error")
	s.PaneStates(func() map[string]int { return map[string]int{"READY": 1, "BUSY": 2} })
	got := text(t, s)
	var types []string
	var series [][2]string // name, labels
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		f := strings.Fields(line)
		switch {
		case f[0] == "#" && f[1] == "TYPE":
			types = append(types, f[2])
		case f[0] != "#":
			name, labels, _ := strings.Cut(f[0], "{")
			series = append(series, [2]string{name, labels})
		}
	}
	if !slices.IsSorted(types) || len(types) != 7 {
		t.Errorf("metrics not sorted by name: %v", types)
	}
	if !slices.IsSortedFunc(series, func(a, b [2]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) }) {
		t.Errorf("series not sorted by metric, then labels:\n%s", got)
	}
	if again := text(t, s); again != got {
		t.Errorf("the text changed with no count:\n%s\nthen:\n%s", got, again)
	}
}
