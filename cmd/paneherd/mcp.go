package main

import (
	"context"
	"errors"
	"flag"
	"os"

	"github.com/paneherd/paneherd/internal/mcpserver"
)

var cmdMCP = command{
	name:    "mcp",
	summary: "serve the Model Context Protocol on stdio: an orchestrating agent sees and drives the workers",
	usage:   "mcp [--read-only]",
	about: `Serves the Model Context Protocol on stdin and stdout, so an orchestrating agent (Claude
Code, Codex CLI, Gemini CLI, ...) can see and drive the workers of this tmux server:
tools list_workers, read_screen, wait_worker, history, send_prompt, approve_dialog,
deny_dialog, create_worker, retire_worker; resources paneherd://workers and
paneherd://workers/{name}, with subscriptions. Each tool does what the command of the same
job does, with the same checks and outcomes. Starts the daemon if the tmux server has
none. Run from inside tmux it serves that server; else give -L or -S. With no daemon it
can start, it serves anyway and every tool call says why.`,
	link: "[mcp.md](mcp.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		readOnly := fs.Bool("read-only", false, "offer only the tools that do not act: list, read, wait, history")
		return func(ctx context.Context, e *env, args []string) error { return runMCP(ctx, e, fs, readOnly, args) }
	},
}

func runMCP(ctx context.Context, e *env, fs *flag.FlagSet, readOnly *bool, args []string) error {
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	binary, err := os.Executable()
	if err != nil {
		return err
	}
	opts := mcpserver.Options{ReadOnly: *readOnly, Version: selfVersion(), Binary: binary}
	err = mcpserver.Run(ctx, d, opts, mcpserver.Stdio(e.stdin, e.stdout))
	if errors.Is(err, context.Canceled) {
		return nil // the client went, or Ctrl-C
	}
	return err
}
