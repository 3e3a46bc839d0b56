// Command calibrate (make lab-calibrate, run by internal/lab/calibrate.sh) records what the
// real agent CLIs of the agents lab write to their terminal in each situation the bench
// plays: idle at the prompt, thinking, streaming an answer, a permission dialog, running
// a tool, an error. Each CLI is started afresh per situation in a tmux session of the
// bench's pane size, brought into it with the lab's fake-model keywords, and recorded for
// a few seconds of its steady state: its screen with escapes, then every %output event of
// its pane with its time, then its screen again (package termrec). The recordings are
// what cmd/paneherd-bench's players replay, and what docs/performance.md's table of how
// agents write is computed from.
//
// It lives beside the lab's scripts, not under cmd/, because it is one of them: it needs
// the CLIs and the fake model server, runs only through the lab target, and ships nowhere.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/internal/termrec"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// options are the run's flags.
type options struct {
	socket     string        // the lab's tmux server (-L)
	envsh      string        // sourced as `. ENVSH AGENT` before the CLI starts (the lab's env.sh)
	agentsDir  string        // where the CLIs are installed (for their versions)
	work       string        // where each agent gets its working directory
	out        string        // where the recordings go
	length     time.Duration // how long each situation is recorded
	cols, rows int           // the pane's size: the bench's
	situations []string
	agents     []string
	log        io.Writer
}

func parse(args []string, stderr io.Writer) (options, error) {
	o := options{log: stderr}
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.socket, "L", "", "the lab's tmux socket name")
	fs.StringVar(&o.envsh, "env", "", "the script sourced with the agent's name before its CLI starts (the lab's env.sh)")
	fs.StringVar(&o.agentsDir, "agents-dir", os.Getenv("AGENTS_DIR"), "where the CLIs are installed (node_modules inside)")
	fs.StringVar(&o.work, "work", "", "folder for the agents' working directories")
	fs.StringVar(&o.out, "out", "", "folder the recordings are written to")
	fs.DurationVar(&o.length, "for", 9*time.Second, "how long each situation is recorded")
	fs.IntVar(&o.cols, "x", 120, "the pane's width (the bench's)")
	fs.IntVar(&o.rows, "y", 40, "the pane's height (the bench's)")
	only := fs.String("situations", "", "record only these situations (comma-separated; default all)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.agents = fs.Args()
	if len(o.agents) == 0 {
		for _, a := range agents {
			o.agents = append(o.agents, a.name)
		}
	}
	for _, s := range situations {
		o.situations = append(o.situations, s.name)
	}
	if *only != "" {
		o.situations = strings.Split(*only, ",")
	}
	if o.socket == "" || o.envsh == "" || o.work == "" || o.out == "" || o.agentsDir == "" {
		return o, fmt.Errorf("calibrate: -L, -env, -agents-dir, -work and -out are needed")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	failed := 0
	for _, name := range o.agents {
		if err := warmUp(ctx, o, name); err != nil {
			fmt.Fprintf(stderr, "calibrate: %s: %v\n", name, err)
			failed++
			continue
		}
		for _, sit := range o.situations {
			if ctx.Err() != nil {
				return 1
			}
			path, err := recordOne(ctx, o, name, sit)
			if err != nil {
				fmt.Fprintf(stderr, "calibrate: %s %s: %v\n", name, sit, err)
				failed++
				continue
			}
			fmt.Fprintf(stderr, "calibrate: %s %s: %s\n", name, sit, path)
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// warmUp starts the agent once and lets it settle, its folder trusted: what a first start
// draws (a trust dialog, a plugin installed) stays out of the recordings.
func warmUp(ctx context.Context, o options, name string) error {
	a, err := agentByName(name)
	if err != nil {
		return err
	}
	p, err := startPane(ctx, o, a, name+"-first")
	if err != nil {
		return err
	}
	defer p.close()
	p.launched()
	return nil
}

// recordOne starts the agent afresh, brings it into the situation, records it and
// writes the recording, in place of any of another version of the same agent.
func recordOne(ctx context.Context, o options, name, sit string) (string, error) {
	a, err := agentByName(name)
	if err != nil {
		return "", err
	}
	s, ok := situationByName(sit)
	if !ok {
		return "", fmt.Errorf("unknown situation")
	}
	version, err := a.version(o.agentsDir)
	if err != nil {
		return "", err
	}
	p, err := startPane(ctx, o, a, name+"-"+sit)
	if err != nil {
		return "", err
	}
	defer p.close()
	p.launched()
	p.prompt("hello there")
	p.settle()
	if s.prompt != nil {
		p.prompt(s.prompt(a))
	}
	s.reach(p)
	rec, err := record(ctx, p, o.length)
	if err != nil {
		return "", err
	}
	rec.Agent, rec.Version, rec.State, rec.Cols, rec.Rows = name, version, sit, o.cols, o.rows
	scrub(&rec, o.work)
	if leaks(rec) {
		return "", fmt.Errorf("it names a temporary path besides the work folder: not kept")
	}
	return save(o.out, rec)
}

// save writes rec as OUT/AGENT-VERSION-STATE.rec.gz and removes the agent's recordings of
// the state at other versions: one recording per agent and state.
func save(dir string, rec termrec.Recording) (string, error) {
	old, _ := filepath.Glob(filepath.Join(dir, rec.Agent+"-*-"+rec.State+termrec.Ext))
	path := filepath.Join(dir, rec.Agent+"-"+rec.Version+"-"+rec.State+termrec.Ext)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := rec.Encode(f); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	for _, o := range old {
		if o != path {
			os.Remove(o)
		}
	}
	return path, nil
}
