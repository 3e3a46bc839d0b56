package main

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/paneherd/paneherd/internal/termrec"
)

// agentRecordings are the real agent CLIs' output, recorded in the agents lab at the
// bench's pane size by `make lab-calibrate` (internal/lab/calibrate): one file per CLI
// and situation, AGENT-VERSION-SITUATION.rec.gz.
//
//go:embed agents/*.rec.gz
var agentRecordings embed.FS

// recordedAgents are the CLIs recorded: the agents players play with -redraw agents.
var recordedAgents = []string{"claude", "codex", "gemini", "opencode", "qwen"}

// situationsOf says which recorded situations play a schedule's state: a BUSY step plays
// the next of its situations each time it comes round.
var situationsOf = map[string][]string{
	"ready":              {"idle"},
	"busy":               {"thinking", "streaming", "tool"},
	"needs_confirmation": {"dialog"},
	"error":              {"error"},
}

// recordingOf reads the agent's recording of the situation, whatever its version.
func recordingOf(agent, situation string) (termrec.Recording, error) {
	names, err := fs.Glob(agentRecordings, path.Join("agents", agent+"-*-"+situation+termrec.Ext))
	if err != nil || len(names) != 1 {
		return termrec.Recording{}, fmt.Errorf("play: %d recordings of %s %s, want one", len(names), agent, situation)
	}
	data, err := agentRecordings.ReadFile(names[0])
	if err != nil {
		return termrec.Recording{}, err
	}
	return termrec.Decode(bytes.NewReader(data))
}

// clock is the time a replay keeps: the real one, or a test's.
type clock struct {
	now   func() time.Time
	sleep func(time.Duration)
}

var realClock = clock{now: time.Now, sleep: time.Sleep}

// replay plays rec to out as its CLI wrote it, until end: the first screen (then drawn is
// called), then each write at its time after it, and again each rec.Duration, as a CLI
// goes on doing what it does: from the first screen again, as the writes move the cursor
// from where it was (a second pass from the last screen would draw on the wrong rows). It
// returns at end, or when the next write would come after it.
func replay(out io.Writer, rec termrec.Recording, end time.Time, c clock, drawn func()) {
	start := c.now()
	out.Write(rec.Start.Draw())
	drawn()
	if len(rec.Writes) == 0 || rec.Duration <= 0 {
		c.sleep(end.Sub(c.now()))
		return
	}
	for base := start; ; base = base.Add(rec.Duration) {
		if base != start {
			if !base.Before(end) {
				c.sleep(end.Sub(c.now()))
				return
			}
			c.sleep(base.Sub(c.now()))
			out.Write(rec.Start.Draw())
		}
		for _, w := range rec.Writes {
			at := base.Add(w.At)
			if !at.Before(end) {
				c.sleep(end.Sub(c.now()))
				return
			}
			c.sleep(at.Sub(c.now()))
			out.Write(w.Data)
		}
	}
}
