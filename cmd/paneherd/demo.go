package main

import (
	"context"
	"flag"
	"os"
	"strconv"
	"time"

	"github.com/paneherd/paneherd/internal/demo"
)

const demoUsage = `usage: paneherd demo [--headless] [--duration 15s]

Starts a private tmux server with four workers playing real captured screens of Claude
Code, Codex CLI, Gemini CLI and a shell, loads paneherd into it as a plugin, and attaches:
watch the status bar go through READY, BUSY, NEEDS_CONFIRMATION and ERROR. Leave with
Ctrl-b d; the demo server and its files are removed. Your own tmux server is not touched.

  --headless         do not attach: print each distinct status line, then clean up;
                     exit 0 only if every state was shown
  --duration DUR     how long a headless demo runs (default 15s)
`

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	headless := fs.Bool("headless", false, "")
	duration := fs.Duration("duration", 15*time.Second, "")
	rest, err := parseFlags(fs, args, demoUsage)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(demoUsage, "demo takes no arguments")
	}
	binary, err := selfPath()
	if err != nil {
		return err
	}
	if !*headless && !isTerminal(os.Stdin) {
		return usagef(demoUsage, "demo needs a terminal to attach to; use --headless")
	}
	return demo.Run(ctx, demo.Options{Binary: binary, Headless: *headless, Duration: *duration,
		Stdout: e.stdout, Stderr: e.stderr})
}

// runDemoWorker is a demo pane's program: it plays one worker's screens until killed.
func runDemoWorker(ctx context.Context, e *env, args []string) error {
	const usage = "usage: paneherd demo-worker PACK START\n"
	if len(args) != 2 {
		return usagef(usage, "demo-worker takes a pack and a starting step")
	}
	start, err := strconv.Atoi(args[1])
	if err != nil {
		return usagef(usage, "bad starting step %q", args[1])
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
