package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/wire"
)

var cmdCreate = command{
	name:    "create",
	summary: "start a managed worker in a directory (or a git worktree) and keep it alive",
	usage: "create DIR [--name NAME] [--pack PACK] [--session S] [--worktree BRANCH] [--prompt TEXT] " +
		"[--restart on-failure|always|never] [--health-every 30m --health-prompt TEXT] [--handoff-at 85% --handoff-prompt TEXT] " +
		"[--timeout 2m] [--json] [-- COMMAND...]",
	about: `Starts a managed worker: a tmux window named NAME (default: DIR's name, or BRANCH's) in
session S (default agents_<DIR's name>), rooted in DIR, running the pack's [launch]
command or COMMAND; registers it, waits until it is READY, then sends --prompt through
'paneherd send' (not READY in time: the prompt is queued for when it is). DIR must be in
the allowed workspaces (@paneherd-workspaces; default your home). --worktree makes a git
worktree of BRANCH for it first (@paneherd-worktree-dir says where). The daemon keeps it
alive: a crash restarts it with the pack's resume command (its conversation goes on),
3 crashes within 15 minutes give up ('paneherd workers continue NAME' starts it again).
--handoff-at sends --handoff-prompt once when the worker's context passes that share of
its model's window and it is READY, again only after its context fell below (docs/context.md).
Bad input (DIR missing, name taken, unknown pack, no git repository) creates nothing.`,
	more: outcome.Usage("create"),
	link: "[supervising.md](supervising.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o createOptions
		fs.StringVar(&o.ask.Name, "name", "", "the worker's and its window's `NAME` (default: DIR's name, or BRANCH's)")
		fs.StringVar(&o.ask.Pack, "pack", "", "the agent's `PACK`: its [launch] command runs, unless COMMAND is given")
		fs.StringVar(&o.ask.Session, "session", "", "the tmux session `S` to start it in (default agents_<DIR's name>)")
		fs.StringVar(&o.ask.Worktree, "worktree", "", "make a git worktree of `BRANCH` for it first (@paneherd-worktree-dir says where)")
		fs.StringVar(&o.ask.Restart, "restart", "", "when to restart it, `P`: on-failure (default: not after a clean exit), always, never")
		fs.DurationVar(&o.ask.HealthEvery, "health-every", 0, "send --health-prompt every `D` while the worker is READY "+
			"(at least @paneherd-health-min apart; paused after 3 prompts that change nothing)")
		fs.StringVar(&o.ask.HealthPrompt, "health-prompt", "", "the `TEXT` --health-every sends")
		fs.Var((*percentFlag)(&o.ask.HandoffAt), "handoff-at", "send --handoff-prompt once the worker's context passes `P` of its model's window (85%), "+
			"while it is READY; again only after its context fell below (a compaction, a new conversation)")
		fs.StringVar(&o.ask.HandoffPrompt, "handoff-prompt", "", "the `TEXT` --handoff-at sends")
		fs.StringVar(&o.prompt, "prompt", "", "the `TEXT` to send once it is READY")
		fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "how long to wait for READY, `D` (default 2m)")
		fs.BoolVar(&o.json, "json", false, `print {"worker":{...},"started":{...},"prompt":{...}}`)
		return func(ctx context.Context, e *env, args []string) error { return runCreate(ctx, e, fs, &o, args) }
	},
}

type createOptions struct {
	ask     wire.CreateAsk
	prompt  string
	timeout time.Duration
	json    bool
}

func runCreate(ctx context.Context, e *env, fs *flag.FlagSet, o *createOptions, args []string) error {
	command := []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
		if len(command) == 0 {
			return usagef("nothing after --: give the command to run")
		}
	}
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("create takes one DIR (the command to run goes after --)")
	}
	if o.ask.HealthEvery < 0 || o.timeout <= 0 {
		return usagef("--health-every and --timeout must be positive")
	}
	if (o.ask.HealthEvery > 0) != (o.ask.HealthPrompt != "") {
		return usagef("--health-every and --health-prompt go together")
	}
	if o.prompt != "" { // the handoff is the supervisor's to check (checkHandoff), for MCP too
		if _, err := deliver.Sanitize(o.prompt); err != nil {
			return usagef("--prompt: %v", err)
		}
	}
	if o.ask.Dir, err = filepath.Abs(rest[0]); err != nil {
		return err
	}
	o.ask.Command = command
	d, err := e.daemon()
	if err != nil {
		return err
	}
	rep, err := d.Launch(ctx, o.ask, o.prompt, o.timeout)
	if err != nil {
		return err
	}
	return reportCreated(e, o.json, rep)
}

// percentFlag is a share of a whole, written "85%" or "85": 1 to 100.
type percentFlag int

func (p *percentFlag) String() string {
	if p == nil || *p == 0 {
		return ""
	}
	return strconv.Itoa(int(*p)) + "%"
}

func (p *percentFlag) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	if err != nil || v < 1 || v > 100 {
		return fmt.Errorf("%q is not a percent from 1%% to 100%%", s)
	}
	*p = percentFlag(v)
	return nil
}

// reportCreated says what was started and how it is; the exit code is the wait's, then
// the prompt's.
func reportCreated(e *env, asJSON bool, rep wire.Created) error {
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
