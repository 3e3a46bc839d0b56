package main

import (
	"regexp"
	"strings"
	"time"
)

// The oracle: the true state at every sample, from the script's actions and, with
// hindsight, the screens recorded after each. Every action opens an interval that lasts
// until the next one; within it:
//
//   - a "type" action (text typed, not submitted) changes nothing: the state the interval
//     before ended in goes on;
//   - where one of the action's marks (a dialog's question, the error text the script
//     provoked) matches more lines than it did when the action started, the state is the
//     mark's: NEEDS_CONFIRMATION or ERROR, for as long as it does;
//   - otherwise the agent is BUSY from the keystroke until the interval's final frame (the
//     first sample of the screen that then stays unchanged, less lines that animate while
//     idle, until the next action) and READY from it on;
//   - an interval the script cuts short while the agent works (an interrupt follows), or
//     whose final frame held for less than finalAtLeast, shows nothing or shows what
//     the screen showed before the action (a CLI still loading), has no final frame:
//     all BUSY.
//
// Samples before the first action have no truth and are not counted.

// finalAtLeast is how long a screen must hold still before the next action to count as
// the turn's final frame: a busy screen can repeat for a few samples between redraws.
const finalAtLeast = time.Second

// label returns the true state of every sample of rec ("" before the first action).
func label(rec recording) []string {
	truth := make([]string, len(rec.Samples))
	idle := compileAll(rec.Idle)
	prev := ""
	for i, a := range rec.Actions {
		end := time.Time{}
		if i+1 < len(rec.Actions) {
			end = rec.Actions[i+1].At
		}
		lo, hi := span(rec.Samples, a.At, end)
		if a.Kind == "type" {
			fill(truth[lo:hi], prev)
		} else {
			labelInterval(rec.Samples, truth, lo, hi, a, idle)
		}
		if hi > lo {
			prev = truth[hi-1]
		}
	}
	return truth
}

// labelInterval labels samples lo..hi-1, the interval action a opened.
func labelInterval(samples []sample, truth []string, lo, hi int, a action, idle []*regexp.Regexp) {
	final := hi // no final frame
	if !a.Cut && hi > lo {
		f := finalFrame(samples[lo:hi], idle) + lo
		if samples[hi-1].At.Sub(samples[f].At)+sampleEvery >= finalAtLeast && !unmoved(samples, f, lo, idle) {
			final = f
		}
	}
	marks := compileMarks(a.Marks)
	base := make([]int, len(marks))
	if lo > 0 {
		for m, re := range marks {
			base[m] = count(re, samples[lo-1].Screen)
		}
	}
	for j := lo; j < hi; j++ {
		truth[j] = "BUSY"
		if j >= final {
			truth[j] = "READY"
		}
		for m, re := range marks {
			if count(re, samples[j].Screen) > base[m] {
				truth[j] = a.Marks[m].State
				break
			}
		}
	}
}

// unmoved: sample f shows nothing, or what the screen showed before the action at lo
// (a CLI still loading: blank, or the shell's line it was started from).
func unmoved(samples []sample, f, lo int, idle []*regexp.Regexp) bool {
	sc := normalize(samples[f].Screen, idle)
	return sc == "" || (lo > 0 && sc == normalize(samples[lo-1].Screen, idle))
}

// finalFrame is the index of the first sample of the last run of equal screens.
func finalFrame(samples []sample, idle []*regexp.Regexp) int {
	f := len(samples) - 1
	last := normalize(samples[f].Screen, idle)
	for f > 0 && normalize(samples[f-1].Screen, idle) == last {
		f--
	}
	return f
}

// span returns the samples taken from `from` until `to` (to zero: the end).
func span(samples []sample, from, to time.Time) (lo, hi int) {
	lo = len(samples)
	for i, s := range samples {
		if !s.At.Before(from) {
			lo = i
			break
		}
	}
	hi = len(samples)
	if !to.IsZero() {
		for i := lo; i < len(samples); i++ {
			if !samples[i].At.Before(to) {
				hi = i
				break
			}
		}
	}
	return lo, hi
}

func fill(states []string, s string) {
	for i := range states {
		states[i] = s
	}
}

// normalize is a screen as stillness is judged: what animates while the agent is idle
// cut out of its lines, trailing blanks and blank lines dropped.
func normalize(screen []string, idle []*regexp.Regexp) string {
	var b strings.Builder
	for _, line := range screen {
		for _, re := range idle {
			line = re.ReplaceAllString(line, "")
		}
		if line = strings.TrimRight(line, " "); line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func matchesAny(res []*regexp.Regexp, line string) bool {
	for _, re := range res {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

// count is how many lines of the screen match re.
func count(re *regexp.Regexp, screen []string) int {
	n := 0
	for _, line := range screen {
		if re.MatchString(line) {
			n++
		}
	}
	return n
}

func compileAll(patterns []string) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		res[i] = regexp.MustCompile(p)
	}
	return res
}

func compileMarks(marks []mark) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(marks))
	for i, m := range marks {
		res[i] = regexp.MustCompile(m.Pattern)
	}
	return res
}
