package main

import (
	"context"
	"flag"
	"os"
	"strconv"
	"time"

	"github.com/paneherd/paneherd/internal/demo"
)

var cmdDemo = command{
	name:    "demo",
	summary: "see paneherd at work on a private tmux server (--headless: print, no attach)",
	usage:   "demo [--headless] [--duration 15s]",
	about: `Starts a private tmux server with four workers playing real captured screens of Claude
Code, Codex CLI, Gemini CLI and a shell, loads paneherd into it as a plugin, and attaches:
watch the status bar go through READY, BUSY, NEEDS_CONFIRMATION and ERROR. Leave with
Ctrl-b d; the demo server and its files are removed. Your own tmux server is not touched.`,
	flags: func(fs *flag.FlagSet) runFunc {
		var o demoOptions
		fs.BoolVar(&o.headless, "headless", false, "do not attach: print each distinct status line, then clean up; exit 0 only if every state was shown")
		fs.DurationVar(&o.duration, "duration", 15*time.Second, "how long a headless demo runs, `DUR` (default 15s)")
		return func(ctx context.Context, e *env, args []string) error { return runDemo(ctx, e, fs, &o, args) }
	},
}

type demoOptions struct {
	headless bool
	duration time.Duration
}

func runDemo(ctx context.Context, e *env, fs *flag.FlagSet, o *demoOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("demo takes no arguments")
	}
	binary, err := selfPath()
	if err != nil {
		return err
	}
	if !o.headless && !isTerminal(os.Stdin) {
		return usagef("demo needs a terminal to attach to; use --headless")
	}
	return demo.Run(ctx, demo.Options{Binary: binary, Headless: o.headless, Duration: o.duration,
		Stdout: e.stdout, Stderr: e.stderr})
}

// cmdDemoWorker is a demo pane's program.
var cmdDemoWorker = command{
	name:  "demo-worker",
	usage: "demo-worker PACK START",
	flags: rawArgs(runDemoWorker),
}

// runDemoWorker is a demo pane's program: it plays one worker's screens until killed.
func runDemoWorker(ctx context.Context, e *env, args []string) error {
	if len(args) != 2 {
		return usagef("demo-worker takes a pack and a starting step")
	}
	start, err := strconv.Atoi(args[1])
	if err != nil {
		return usagef("bad starting step %q", args[1])
	}
	err = demo.Play(ctx, e.stdout, args[0], start)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
