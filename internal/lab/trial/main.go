// Command trial (make lab-trial, run by internal/lab/trial.sh) drives the real agent CLIs
// of the agents lab through a scripted session each, in a tmux server a paneherd daemon
// watches, and measures the state the daemon shows against the true state: the share of
// 100 ms samples where they agree, the latency to show each change, and any READY shown
// while the agent was busy. The truth comes from the script and the screens it recorded
// (oracle.go), never from paneherd's packs.
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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the run's flags.
type options struct {
	socket string // the lab's tmux server (-L), where the daemon runs
	envsh  string // sourced as `. ENVSH AGENT` before the CLI starts (the lab's env.sh)
	work   string // where each agent gets its working directory
	out    string // recordings, the report
	label  string // what this run is, in the report ("no hooks", "hooks")
	replay bool   // label the recordings in out again instead of running
	// timeline: with replay, print each recording's actions and true and shown states too
	timeline bool
	agents   []string
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("trial", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.socket, "L", "", "the lab's tmux socket name (its daemon already runs)")
	fs.StringVar(&o.envsh, "env", "", "the script sourced with the agent's name before its CLI starts (the lab's env.sh)")
	fs.StringVar(&o.work, "work", "", "folder for the agents' working directories")
	fs.StringVar(&o.out, "out", "", "folder for the recordings and the report")
	fs.StringVar(&o.label, "label", "no hooks", "the run's name in the report")
	fs.BoolVar(&o.replay, "replay", false, "measure the recordings already in -out again (no CLI runs)")
	fs.BoolVar(&o.timeline, "timeline", false, "with -replay, print each recording's actions and its true and shown states")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.agents = fs.Args()
	if len(o.agents) == 0 {
		o.agents = agentNames()
	}
	if o.out == "" || (!o.replay && (o.socket == "" || o.envsh == "" || o.work == "")) {
		return o, fmt.Errorf("trial: -out is needed, and -L, -env and -work unless -replay")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	var results []result
	for _, name := range o.agents {
		rec, err := recordingFor(ctx, o, name, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "trial: %s: %v\n", name, err)
			continue
		}
		truth := label(rec)
		if o.timeline {
			writeTimeline(stdout, rec, truth)
		}
		results = append(results, measure(rec, truth))
	}
	report := renderReport(o.label, results)
	fmt.Fprint(stdout, report)
	path := filepath.Join(o.out, "trial-"+strings.ReplaceAll(o.label, " ", "-")+".md")
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		fmt.Fprintln(stderr, "trial:", err)
		return 1
	}
	fmt.Fprintln(stderr, "trial: report written to", path)
	if len(results) < len(o.agents) {
		return 1
	}
	return 0
}

// recordingFor runs the agent's session, or reads its recording back with -replay.
func recordingFor(ctx context.Context, o options, name string, stderr io.Writer) (recording, error) {
	path := filepath.Join(o.out, name+".json")
	a, ok := agentByName(name)
	if !ok {
		return recording{}, fmt.Errorf("unknown agent (%s)", strings.Join(agentNames(), " "))
	}
	if o.replay { // judged with the idle lines as the script has them now
		rec, err := readRecording(path)
		rec.Idle = a.idle
		return rec, err
	}
	fmt.Fprintf(stderr, "trial: %s: scripted session starts\n", name)
	rec, err := runSession(ctx, o, a, stderr)
	if err != nil {
		return rec, err
	}
	return rec, writeRecording(path, rec)
}
