package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/query"
)

var createUsage = `usage: paneherd create DIR [--name NAME] [--pack PACK] [--session S] [--worktree BRANCH]
                       [--prompt TEXT] [--restart on-failure|always|never]
                       [--health-every 30m --health-prompt TEXT] [--timeout 2m] [--json] [-- COMMAND...]

Starts a managed worker: a tmux window named NAME (default: DIR's name, or BRANCH's) in
session S (default agents_<DIR's name>), rooted in DIR, running the pack's [launch]
command or COMMAND; registers it, waits until it is READY, then sends --prompt through
'paneherd send' (not READY in time: the prompt is queued for when it is). DIR must be in
the allowed workspaces (@paneherd-workspaces; default your home). --worktree makes a git
worktree of BRANCH for it first (@paneherd-worktree-dir says where). The daemon keeps it
alive: a crash restarts it with the pack's resume command (its conversation goes on),
3 crashes within 15 minutes give up ('paneherd workers continue NAME' starts it again).
Bad input (DIR missing, name taken, unknown pack, no git repository) creates nothing.

  --restart P       on-failure (default: not after a clean exit), always, never
  --health-every D  send --health-prompt every D while the worker is READY (at least
                    @paneherd-health-min apart; paused after 3 prompts that change nothing)
  --timeout D       how long to wait for READY (default 2m)
  --json            print {"worker":{...},"started":{...},"prompt":{...}}
` + outcome.Usage("create")

func runCreate(ctx context.Context, e *env, args []string) error {
	command := []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
		if len(command) == 0 {
			return usagef(createUsage, "nothing after --: give the command to run")
		}
	}
	var ask query.CreateAsk
	var prompt string
	fs := flag.NewFlagSet("create", flag.ContinueOnError)
	fs.StringVar(&ask.Name, "name", "", "")
	fs.StringVar(&ask.Pack, "pack", "", "")
	fs.StringVar(&ask.Session, "session", "", "")
	fs.StringVar(&ask.Worktree, "worktree", "", "")
	fs.StringVar(&ask.Restart, "restart", "", "")
	fs.DurationVar(&ask.HealthEvery, "health-every", 0, "")
	fs.StringVar(&ask.HealthPrompt, "health-prompt", "", "")
	fs.StringVar(&prompt, "prompt", "", "")
	timeout := fs.Duration("timeout", 2*time.Minute, "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args, createUsage)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef(createUsage, "create takes one DIR (the command to run goes after --)")
	}
	if ask.HealthEvery < 0 || *timeout <= 0 {
		return usagef(createUsage, "--health-every and --timeout must be positive")
	}
	if (ask.HealthEvery > 0) != (ask.HealthPrompt != "") {
		return usagef(createUsage, "--health-every and --health-prompt go together")
	}
	if prompt != "" {
		if _, err := deliver.Sanitize(prompt); err != nil {
			return usagef(createUsage, "--prompt: %v", err)
		}
	}
	if ask.Dir, err = filepath.Abs(rest[0]); err != nil {
		return err
	}
	ask.Command = command
	d, err := e.daemon()
	if err != nil {
		return err
	}
	rep, err := d.Launch(ctx, ask, prompt, *timeout)
	if err != nil {
		return err
	}
	return reportCreated(e, *asJSON, rep)
}

// reportCreated says what was started and how it is; the exit code is the wait's, then
// the prompt's.
func reportCreated(e *env, asJSON bool, rep herd.Created) error {
	w, st := rep.Worker, rep.Started
	if asJSON {
		if err := json.NewEncoder(e.stdout).Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s %s %s:%s in %s: %s %s after %s\n", w.Name, w.PaneID, w.Session, w.Window, w.Workspace,
			st.FinalState, orDash(st.State), time.Duration(st.ElapsedMS)*time.Millisecond)
		if rep.Prompt != nil {
			fmt.Fprintf(e.stdout, "prompt %s %s\n", rep.Prompt.ID, rep.Prompt.Outcome)
		}
	}
	if !outcome.OK(st.FinalState) {
		return finish(st.FinalState, fmt.Sprintf("%s started but is not READY: %s (it stays registered; paneherd retire %s removes it)", w.Name, orDash(st.Summary), w.Name))
	}
	if rep.Prompt != nil {
		return finish(rep.Prompt.Outcome, rep.Prompt.Detail)
	}
	return nil
}
