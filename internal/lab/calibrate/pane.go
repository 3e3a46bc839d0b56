package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// Pacing. A screen has settled once it has held still for stillFor (a CLI's idle
// animation aside: at most a line changing); no wait lasts longer than waitLimit.
const (
	lookEvery = 100 * time.Millisecond
	stillFor  = 2 * time.Second
	waitLimit = 60 * time.Second
)

// pane is one CLI running in a session of its own, driven with tmux keys.
type pane struct {
	ctx     context.Context
	tmux    tmux.Server
	session string
	id      string
	agent   agent
	log     io.Writer
}

// startPane opens a session of cols x rows with a plain shell, where the lab's env.sh is
// sourced and the CLI started in workdir.
func startPane(ctx context.Context, o options, a agent, session string) (*pane, error) {
	tm := tmux.Server{Name: o.socket, Timeout: 5 * time.Second}
	id, err := tm.Run(ctx, nil, "new-session", "-d", "-s", session, "-x", fmt.Sprint(o.cols), "-y", fmt.Sprint(o.rows),
		"-P", "-F", "#{pane_id}", "bash --norc --noprofile")
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	p := &pane{ctx: ctx, tmux: tm, session: session, id: strings.TrimSpace(id), agent: a, log: o.log}
	workdir := o.work + "/" + a.name
	p.keys("-l", fmt.Sprintf(". %s %s && mkdir -p %s && cd %s && clear", o.envsh, a.name, workdir, workdir))
	p.keys("Enter")
	p.sleep(time.Second)
	p.keys("-l", a.command)
	p.keys("Enter")
	return p, nil
}

func (p *pane) close() {
	p.tmux.Run(context.Background(), nil, "kill-session", "-t", p.session)
}

func (p *pane) keys(args ...string) {
	if _, err := p.tmux.Run(p.ctx, nil, append([]string{"send-keys", "-t", p.id}, args...)...); err != nil {
		p.note("send-keys %v: %v", args, err)
	}
}

func (p *pane) note(format string, args ...any) {
	fmt.Fprintf(p.log, "calibrate: %s: %s\n", p.agent.name, fmt.Sprintf(format, args...))
}

// prompt types text and submits it with Enter of its own once the text shows: keys that
// arrive with Enter are read as a paste by some CLIs. A leading "!" is typed alone, as a
// person switching Qwen Code to its shell mode does.
func (p *pane) prompt(text string) {
	if rest, ok := strings.CutPrefix(text, "!"); ok {
		p.keys("-l", "!")
		p.sleep(500 * time.Millisecond)
		text = rest
	}
	p.keys("-l", text)
	if !p.shows(regexp.QuoteMeta(text), 10*time.Second) {
		p.note("%q does not show in the input", text)
	}
	p.sleep(400 * time.Millisecond)
	p.keys("Enter")
}

func (p *pane) sleep(d time.Duration) {
	select {
	case <-p.ctx.Done():
	case <-time.After(d):
	}
}

// screen is what the pane shows, as plain lines.
func (p *pane) screen() []string {
	out, err := p.tmux.Run(p.ctx, nil, "capture-pane", "-p", "-t", p.id)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(out, "\n"), "\n")
}

// settle waits until the screen has held still for stillFor, one line's change aside.
func (p *pane) settle() {
	var last []string
	since := time.Now()
	for end := time.Now().Add(waitLimit); time.Now().Before(end) && p.ctx.Err() == nil; p.sleep(lookEvery) {
		now := p.screen()
		if changed(last, now) > 1 {
			last, since = now, time.Now()
		}
		if time.Since(since) >= stillFor {
			return
		}
	}
	p.note("the screen did not settle within %s", waitLimit)
}

// changed counts the rows that differ between two screens.
func changed(a, b []string) int {
	n := 0
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			n++
		}
	}
	return n
}

// shows waits until a line matches pattern, for at most limit.
func (p *pane) shows(pattern string, limit time.Duration) bool {
	re := regexp.MustCompile(pattern)
	for end := time.Now().Add(limit); ; p.sleep(lookEvery) {
		for _, line := range p.screen() {
			if re.MatchString(line) {
				return true
			}
		}
		if !time.Now().Before(end) || p.ctx.Err() != nil {
			return false
		}
	}
}

// launched waits until the started CLI shows its prompt and has settled, accepting its
// folder-trust dialog whenever one shows below the prompt (Gemini restarts under the one
// it answered; opencode installs a plugin on its first start).
func (p *pane) launched() {
	for end := time.Now().Add(2 * waitLimit); time.Now().Before(end) && p.ctx.Err() == nil; p.sleep(time.Second) {
		sc := p.screen()
		dialog, ready := lastMatch(sc, p.agent.dialog), lastMatch(sc, p.agent.ready)
		switch {
		case dialog > ready:
			p.keys(p.agent.trust)
			p.sleep(2 * time.Second)
		case ready >= 0:
			p.settle()
			sc = p.screen()
			if lastMatch(sc, p.agent.ready) > lastMatch(sc, p.agent.dialog) {
				return
			}
		}
	}
	p.note("no prompt within %s of its start", 2*waitLimit)
}

// lastMatch is the last row matching pattern, -1 if none.
func lastMatch(screen []string, pattern string) int {
	re := regexp.MustCompile(pattern)
	for i := len(screen) - 1; i >= 0; i-- {
		if re.MatchString(screen[i]) {
			return i
		}
	}
	return -1
}
