package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/termrec"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// Replayed on a terminal of their size, a recording's writes turn its first screen into
// its last: nothing the CLI wrote is missing from it.
func TestReplayDrawsTheLastScreen(t *testing.T) {
	h := tmuxtest.New(t)
	dir := t.TempDir()
	for _, agent := range recordedAgents {
		for _, sit := range situationOrder {
			rec, err := recordingOf(agent, sit)
			if err != nil {
				t.Error(err)
				continue
			}
			name := agent + "-" + sit
			file := filepath.Join(dir, name)
			if err := os.WriteFile(file, twoPasses(rec), 0o644); err != nil {
				t.Fatal(err)
			}
			pane := strings.TrimSpace(h.Run("new-session", "-d", "-s", name, "-x", fmt.Sprint(rec.Cols), "-y", fmt.Sprint(rec.Rows), "-P", "-F", "#{pane_id}", "sleep 600"))
			h.Run("respawn-pane", "-k", "-t", pane, "stty -echo -icanon; cat "+file+"; printf '\\033]2;done\\007'; exec sleep 600")
			tmuxtest.WaitFor(t, 10*time.Second, func() bool {
				return strings.TrimSpace(h.Run("display-message", "-p", "-t", pane, "#{pane_title}")) == "done"
			})
			got := plain(h.Run("capture-pane", "-p", "-t", pane))
			want := plain(rec.End.Text)
			if d := rowsDiffer(got, want); d != "" {
				t.Errorf("%s: the replay's rows differ from the recorded last screen's:\n%s", name, d)
			}
		}
	}
}

// plain is a capture as text, trailing blank rows left out.
func plain(s string) string { return strings.TrimRight(screen.Join(screen.Parse(s).Lines), "\n") }

// rowsDiffer lists the rows that differ, each as replayed then as wanted.
func rowsDiffer(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := range max(len(g), len(w)) {
		row := func(rows []string) string {
			if i < len(rows) {
				return rows[i]
			}
			return "(none)"
		}
		if row(g) != row(w) {
			fmt.Fprintf(&b, "%2d replayed %q\n%2d recorded %q\n", i, row(g), i, row(w))
		}
	}
	return b.String()
}

// twoPasses is what replay writes of rec in two of its passes, as the loop keeps going.
func twoPasses(rec termrec.Recording) []byte {
	t0 := time.Unix(1000, 0)
	now := t0
	c := clock{now: func() time.Time { return now }, sleep: func(d time.Duration) { now = now.Add(max(d, 0)) }}
	var out bytes.Buffer
	replay(&out, rec, t0.Add(2*rec.Duration), c, func() {})
	return out.Bytes()
}
