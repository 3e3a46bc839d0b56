package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// The script's pacing. An answered turn is over once its screen has held still for
// settledFor; a dialog or an error stays on screen for dwell before the script goes on;
// a turn the script interrupts runs for busyFor first.
const (
	settledFor = 5 * time.Second
	dwell      = 3 * time.Second
	busyFor    = 6 * time.Second
	stepLimit  = 60 * time.Second // a step that takes longer is noted and the script goes on
)

// session is one agent's scripted run in its own tmux window.
type session struct {
	ctx     context.Context
	agent   agent
	tmux    tmux.Server
	pane    string
	rec     *sampler
	workdir string
	actions []action
	notes   []string
	log     io.Writer
}

// runSession starts the agent's window, records the scripted session and returns it.
func runSession(ctx context.Context, o options, a agent, log io.Writer) (recording, error) {
	tm := labServer(o.socket)
	snap, err := snapshotPath(tm)
	if err != nil {
		return recording{}, fmt.Errorf("find the snapshot: %w", err)
	}
	pane, err := tm.Run(ctx, nil, "new-window", "-P", "-F", "#{pane_id}", "-n", a.name, "bash --norc --noprofile")
	if err != nil {
		return recording{}, fmt.Errorf("new window: %w", err)
	}
	pane = strings.TrimSpace(pane)
	defer tm.Run(context.Background(), nil, "kill-pane", "-t", pane)
	sctx, stop := context.WithCancel(ctx)
	s := &session{ctx: ctx, agent: a, tmux: tm, pane: pane, log: log,
		rec: &sampler{tmux: tm, pane: pane, snapshot: snap}}
	s.rec.start(sctx)
	workdir := filepath.Join(o.work, a.name)
	s.workdir = workdir
	s.keys("-l", fmt.Sprintf(". %s %s && mkdir -p %s && cd %s && clear", o.envsh, a.name, workdir, workdir))
	s.keys("Enter")
	s.sleep(time.Second)
	script(s)
	stop()
	s.rec.wait()
	samples, shown := s.rec.recorded()
	return recording{Agent: a.name, Pane: pane, Idle: a.idle, Actions: s.actions,
		Samples: samples, Shown: shown, Notes: s.notes, Load: loadAverage()}, ctx.Err()
}

func (s *session) keys(args ...string) {
	if _, err := s.tmux.Run(s.ctx, nil, append([]string{"send-keys", "-t", s.pane}, args...)...); err != nil {
		s.note("send-keys %v: %v", args, err)
	}
}

func (s *session) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	s.notes = append(s.notes, n)
	fmt.Fprintf(s.log, "trial: %s: %s\n", s.agent.name, n)
}

func (s *session) sleep(d time.Duration) {
	select {
	case <-s.ctx.Done():
	case <-time.After(d):
	}
}

// act presses keys and records them as an action, timed when tmux has taken the first.
func (s *session) act(name, kind string, marks []mark, cut bool, keys ...string) {
	s.keys(keys[0])
	s.actions = append(s.actions, action{At: time.Now(), Name: name, Kind: kind, Marks: marks, Cut: cut})
	for _, k := range keys[1:] {
		s.sleep(300 * time.Millisecond)
		s.keys(k)
	}
}

// prompt types text, then submits it with Enter. The typing is an action of its own:
// keys that arrive with Enter are read as a paste by some CLIs, and the screen the text
// changes is not the turn's.
func (s *session) prompt(name, text string, marks []mark, cut bool) {
	s.actions = append(s.actions, action{At: time.Now(), Name: "type " + name, Kind: "type"})
	s.keys("-l", text)
	s.sleep(400 * time.Millisecond)
	s.act(name, "submit", marks, cut, "Enter")
}

// settle waits until the screen (less its idle animation) shows something, is not the
// screen the last action was taken on, and has held still for settledFor.
func (s *session) settle() {
	idle := compileAll(s.agent.idle)
	n := int(settledFor / sampleEvery)
	s.until("a still screen", func() bool {
		last := s.rec.latest(n)
		if len(last) < n || last[0].At.Before(s.lastAction()) {
			return false
		}
		first := normalize(last[0].Screen, idle)
		if first == "" || first == normalize(s.screenAt(s.lastAction()), idle) {
			return false // a CLI loading: it draws nothing for seconds, or has not cleared the shell's line
		}
		for _, smp := range last[1:] {
			if normalize(smp.Screen, idle) != first {
				return false
			}
		}
		return true
	})
}

// appears waits until the last action's mark shows (more lines match than before it).
func (s *session) appears(m mark) bool {
	re := regexp.MustCompile(m.Pattern)
	base := s.countAt(re, s.lastAction())
	return s.until(m.State+" screen /"+m.Pattern+"/", func() bool {
		last := s.rec.latest(1)
		return len(last) == 1 && count(re, last[0].Screen) > base
	})
}

// countAt is how many lines matched re on the last screen before t.
func (s *session) countAt(re *regexp.Regexp, t time.Time) int { return count(re, s.screenAt(t)) }

// screenAt is the last screen sampled at or before t.
func (s *session) screenAt(t time.Time) []string {
	samples, _ := s.rec.recorded()
	var sc []string
	for _, smp := range samples {
		if smp.At.After(t) {
			break
		}
		sc = smp.Screen
	}
	return sc
}

func (s *session) lastAction() time.Time {
	if len(s.actions) == 0 {
		return time.Time{}
	}
	return s.actions[len(s.actions)-1].At
}

// until polls ok every sample until it holds or stepLimit passes (noted).
func (s *session) until(what string, ok func() bool) bool {
	deadline := time.Now().Add(stepLimit)
	for !ok() {
		if time.Now().After(deadline) || s.ctx.Err() != nil {
			s.note("no %s within %s after %q", what, stepLimit, s.actions[len(s.actions)-1].Name)
			return false
		}
		s.sleep(sampleEvery)
	}
	return true
}
