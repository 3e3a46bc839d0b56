package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/agenthooks"
)

var cmdHooks = command{
	name:    "hooks",
	summary: "install, remove or check paneherd's hooks in Claude Code, Codex and Gemini CLI",
	usage:   "hooks install|uninstall [--dry-run] AGENT...\nhooks status [AGENT...]",
	about: `  install     write paneherd's hook into each agent's own settings, beside the user's
              hooks: claude (~/.claude/settings.json), codex ($CODEX_HOME/config.toml,
              notify), gemini (~/.gemini/settings.json); a backup of the file is kept
  uninstall   remove paneherd's hooks (the user's own stay)
  status      say per agent whether paneherd's hooks are installed (default: all)`,
	more: `AGENT: claude, codex, gemini, or all. Each hook runs
'<this binary> hook agent AGENT EVENT', which tells the daemon of the pane's tmux server
at once; the screen still confirms it.`,
	link: "[hooks.md](hooks.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		dryRun := fs.Bool("dry-run", false, "say what install or uninstall would change; change nothing")
		return func(ctx context.Context, e *env, args []string) error { return runHooks(ctx, e, fs, dryRun, args) }
	},
}

func runHooks(ctx context.Context, e *env, fs *flag.FlagSet, dryRun *bool, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("hooks needs install, uninstall or status")
	}
	verb, agents := rest[0], rest[1:]
	if len(agents) == 0 && verb == "status" || len(agents) == 1 && agents[0] == "all" {
		agents = agenthooks.Agents
	}
	if len(agents) == 0 {
		return usagef("hooks %s needs an agent: %s or all", verb, strings.Join(agenthooks.Agents, ", "))
	}
	binary, err := selfPath()
	if err != nil {
		return err
	}
	switch verb {
	case "install", "uninstall":
		return eachAgent(agents, func(agent string) error { return changeHooks(e, verb, agent, binary, *dryRun) })
	case "status":
		if *dryRun {
			return usagef("status changes nothing: --dry-run is for install and uninstall")
		}
		return eachAgent(agents, func(agent string) error { return hooksStatus(e, agent, binary) })
	}
	return usagef("unknown hooks command %q: install, uninstall or status", verb)
}

// eachAgent runs fn for every agent, so one agent's trouble does not stop the others,
// and returns their errors together.
func eachAgent(agents []string, fn func(string) error) error {
	var errs []error
	for _, a := range agents {
		if err := fn(a); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a, err))
		}
	}
	return errors.Join(errs...)
}

func changeHooks(e *env, verb, agent, binary string, dryRun bool) error {
	var c agenthooks.Change
	var err error
	if verb == "install" {
		c, err = agenthooks.Install(agent, binary, e.getenv)
	} else {
		c, err = agenthooks.Uninstall(agent, e.getenv)
	}
	if err != nil {
		return err
	}
	switch {
	case !c.Changed() && verb == "install":
		fmt.Fprintf(e.stdout, "%s: already installed in %s\n", agent, c.File)
		return nil
	case !c.Changed():
		fmt.Fprintf(e.stdout, "%s: no paneherd hooks in %s\n", agent, c.File)
		return nil
	case dryRun:
		fmt.Fprintf(e.stdout, "%s: would change %s:\n", agent, c.File)
		printActions(e, c.Actions)
		return nil
	}
	backup, err := c.Apply(time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: changed %s", agent, c.File)
	if backup != "" {
		fmt.Fprintf(e.stdout, " (the file as it was: %s)", backup)
	}
	fmt.Fprintln(e.stdout, ":")
	printActions(e, c.Actions)
	if verb == "install" {
		fmt.Fprintf(e.stdout, "  sessions started from now on use them; restart running %s sessions\n", agent)
	}
	return nil
}

func printActions(e *env, actions []string) {
	for _, a := range actions {
		fmt.Fprintf(e.stdout, "  %s\n", a)
	}
}

func hooksStatus(e *env, agent, binary string) error {
	s, err := agenthooks.StatusOf(agent, binary, e.getenv)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %s (%s)\n", agent, s.Detail, s.File)
	return nil
}
