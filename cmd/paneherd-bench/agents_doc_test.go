package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/docsection"
	"github.com/paneherd/paneherd/internal/termrec"
)

var update = flag.Bool("update", false, "rewrite docs/performance.md's table of how the agents write")

// TestDocsShowHowAgentsWrite keeps docs/performance.md's table of how the real agents
// write to their terminal the one the recordings the players replay give.
func TestDocsShowHowAgentsWrite(t *testing.T) {
	docsection.Block{
		Page:  "../../docs/performance.md",
		Begin: "<!-- agents: made by cmd/paneherd-bench from its recordings (go test ./cmd/paneherd-bench -run TestDocsShowHowAgentsWrite -update) -->\n",
		End:   "<!-- end of agents -->\n",
	}.Check(t, agentsTable(t), *update)
}

// situationOrder is the table's order of the situations, as a turn goes.
var situationOrder = []string{"idle", "thinking", "streaming", "tool", "dialog", "error"}

// agentsTable is a row per recording: how much the CLI writes, how often, how many rows
// a write reaches, and how it gets there.
func agentsTable(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| CLI | situation | bytes/s | writes/s | rows per write, median (max) | cursor moves per second: to a row, by rows (the longest up) | whole-screen clears, erases below | lines scrolled/s | synchronized output | alternate screen |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, agent := range recordedAgents {
		for _, sit := range situationOrder {
			rec, err := recordingOf(agent, sit)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(agentsRow(rec, termrec.Measure(rec)))
		}
	}
	return b.String()
}

func agentsRow(rec termrec.Recording, f termrec.Figures) string {
	secs := rec.Duration.Seconds()
	up := ""
	if f.UpMax > 0 {
		up = fmt.Sprintf(" (up %d)", f.UpMax)
	}
	return fmt.Sprintf("| %s %s | %s | %.0f | %.1f | %d (%d) | %.1f, %.1f%s | %d, %d | %.1f | %s | %s |\n",
		rec.Agent, rec.Version, rec.State, f.BytesPerSecond, f.WritesPerSecond, f.RowsMedian, f.RowsMax,
		float64(f.Absolute)/secs, float64(f.Relative)/secs, up, f.Clears, f.ErasesBelow,
		float64(f.Scrolled)/secs, yesNo(f.Synchronized), yesNo(f.AlternateUsed))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
