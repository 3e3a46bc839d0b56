package main

import (
	"fmt"
	"io"
)

// writeTimeline prints a recording as the oracle and the daemon saw it: each action, then
// each run of samples with the same true and shown state, with where it starts (seconds
// after the action) and how long it lasts. It is how a figure is checked by hand.
func writeTimeline(w io.Writer, rec recording, truth []string) {
	fmt.Fprintf(w, "== %s\n", rec.Agent)
	next := 0
	for i := 0; i < len(rec.Samples); {
		for next < len(rec.Actions) && !rec.Actions[next].At.After(rec.Samples[i].At) {
			a := rec.Actions[next]
			fmt.Fprintf(w, "%s  > %s (%s)\n", a.At.Format("15:04:05.0"), a.Name, a.Kind)
			next++
		}
		j := i + 1
		for j < len(rec.Samples) && truth[j] == truth[i] && rec.Samples[j].Shown == rec.Samples[i].Shown &&
			(next == len(rec.Actions) || rec.Samples[j].At.Before(rec.Actions[next].At)) {
			j++
		}
		mark := ""
		if truth[i] != rec.Samples[i].Shown && truth[i] != "" {
			mark = "  <- wrong"
		}
		fmt.Fprintf(w, "%s    true %-18s shown %-18s %5.1f s%s\n", rec.Samples[i].At.Format("15:04:05.0"),
			orNone(truth[i]), orNone(rec.Samples[i].Shown), rec.Samples[j-1].At.Sub(rec.Samples[i].At).Seconds()+sampleEvery.Seconds(), mark)
		i = j
	}
}
